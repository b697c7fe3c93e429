-- Hand-written: usage_hourly and usage_daily become tables partitioned by month (PARTITION BY RANGE on the hour and
-- the day), so a year's query reads twelve partitions and retention (lib/metering/retention.ts) drops whole months.
-- The drizzle schema (db/schema/metering.ts) still describes each as one logical table: only this migration knows.
--
-- usage_partition_name(parent, month) names a month's partition: usage_hourly_y2026m05, usage_daily_y2026m05.
CREATE OR REPLACE FUNCTION usage_partition_name(parent text, month date) RETURNS text AS $$
  SELECT parent || '_y' || to_char(month, 'YYYY') || 'm' || to_char(month, 'MM');
$$ LANGUAGE sql IMMUTABLE;--> statement-breakpoint
-- usage_ensure_partitions(from, to): the monthly partitions of both tables for every UTC month from the one holding
-- `from` to the one holding `to`, created when missing; returns how many it created. Ingest calls it before its own
-- transaction (lib/metering/partitions.ts), the leader's job ahead of time. Race-safe: the catalog is read first
-- without a lock (the usual answer: nothing to do), then again under an advisory lock, in a fresh statement that sees
-- what another sender or replica committed meanwhile. Each partition is made as a plain table and ATTACHed: ATTACH
-- takes SHARE UPDATE EXCLUSIVE on the parent, which readers and writers of the parent do not wait for (CREATE TABLE
-- … PARTITION OF takes ACCESS EXCLUSIVE). The parent's indexes, primary key and foreign keys reach the new partition
-- on ATTACH; its CHECK constraints come with LIKE … INCLUDING CONSTRAINTS. There is no DEFAULT partition, on purpose:
-- a row of a month without a partition fails its batch (loudly, and the sender retries after the partition exists)
-- instead of landing where retention cannot drop it by month and where every later ATTACH would have to scan it.
CREATE OR REPLACE FUNCTION usage_ensure_partitions(from_at timestamptz, to_at timestamptz) RETURNS integer AS $$
DECLARE
  first_month date := date_trunc('month', from_at AT TIME ZONE 'UTC')::date;
  last_month date := date_trunc('month', to_at AT TIME ZONE 'UTC')::date;
  schema_name text := (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = 'usage_hourly'::regclass);
  month date;
  parent text;
  part text;
  created integer := 0;
  missing boolean;
BEGIN
  IF from_at IS NULL OR to_at IS NULL OR last_month < first_month THEN RETURN 0; END IF;
  SELECT EXISTS (
    SELECT 1 FROM generate_series(first_month, last_month, interval '1 month') AS m(month), unnest(ARRAY['usage_hourly', 'usage_daily']) AS p(parent)
    WHERE NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = schema_name AND c.relname = usage_partition_name(p.parent, m.month::date))
  ) INTO missing;
  IF NOT missing THEN RETURN 0; END IF;
  PERFORM pg_advisory_xact_lock(7418071);
  FOR month IN SELECT m::date FROM generate_series(first_month, last_month, interval '1 month') AS m LOOP
    FOREACH parent IN ARRAY ARRAY['usage_hourly', 'usage_daily'] LOOP
      part := usage_partition_name(parent, month);
      CONTINUE WHEN EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = schema_name AND c.relname = part);
      EXECUTE format('CREATE TABLE %I.%I (LIKE %I.%I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', schema_name, part, schema_name, parent);
      IF parent = 'usage_hourly' THEN
        -- Explicit UTC offsets: the bounds must not depend on the session's TimeZone.
        EXECUTE format('ALTER TABLE %I.%I ATTACH PARTITION %I.%I FOR VALUES FROM (%L) TO (%L)', schema_name, parent, schema_name, part,
          to_char(month, 'YYYY-MM-DD') || ' 00:00:00+00', to_char(month + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00');
      ELSE
        EXECUTE format('ALTER TABLE %I.%I ATTACH PARTITION %I.%I FOR VALUES FROM (%L) TO (%L)', schema_name, parent, schema_name, part,
          to_char(month, 'YYYY-MM-DD'), to_char(month + interval '1 month', 'YYYY-MM-DD'));
      END IF;
      created := created + 1;
    END LOOP;
  END LOOP;
  RETURN created;
END;
$$ LANGUAGE plpgsql;--> statement-breakpoint
ALTER TABLE "usage_hourly" RENAME TO "usage_hourly_unpartitioned";--> statement-breakpoint
ALTER TABLE "usage_daily" RENAME TO "usage_daily_unpartitioned";--> statement-breakpoint
-- The primary keys already lead with the project and hold the partition key (hour, day): ON CONFLICT on them keeps
-- working, and a project's window is one index range per partition. Keys and indexes are added after the rows are
-- copied (one build per partition instead of row-by-row maintenance).
CREATE TABLE "usage_hourly" (
	"project_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"resource" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"source" text NOT NULL,
	"quantity" double precision NOT NULL,
	"requested" double precision,
	"used" double precision,
	"gpu_utilization" double precision,
	"ingested_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_hourly_quantity" CHECK ("usage_hourly"."quantity" >= 0 and "usage_hourly"."quantity" < 1e12),
	CONSTRAINT "usage_hourly_utilization" CHECK ("usage_hourly"."gpu_utilization" is null or ("usage_hourly"."gpu_utilization" >= 0 and "usage_hourly"."gpu_utilization" <= 1))
) PARTITION BY RANGE ("hour");--> statement-breakpoint
-- usage_daily is partitioned too, though it is 24 times smaller (about 0.9 M rows a year at 500 projects): retention
-- must drop the rollup with the hours it sums (a rollup recomputed over a dropped month would otherwise turn to zero,
-- and a kept rollup beside dropped hours would disagree with the hourly series), and a DROP of a month is instant
-- where a DELETE of its rows is not; the tenant and platform month queries (usage_daily_day_idx, _tenant_day_idx)
-- then read only the window's months.
CREATE TABLE "usage_daily" (
	"project_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"resource" text NOT NULL,
	"day" date NOT NULL,
	"quantity" numeric(24, 9) NOT NULL,
	"cost" numeric(24, 9) NOT NULL,
	"unpriced_quantity" numeric(24, 9) DEFAULT '0' NOT NULL,
	"gpu_measured_hours" numeric(24, 9) DEFAULT '0' NOT NULL,
	"gpu_busy_hours" numeric(24, 9) DEFAULT '0' NOT NULL,
	"has_demo" boolean DEFAULT false NOT NULL
) PARTITION BY RANGE ("day");--> statement-breakpoint
-- Every month that holds a row, and this month to two months ahead (the leader's job keeps that lead).
SELECT usage_ensure_partitions(min(at), max(at)) FROM (
  SELECT hour AS at FROM "usage_hourly_unpartitioned"
  UNION ALL SELECT day::timestamp AT TIME ZONE 'UTC' FROM "usage_daily_unpartitioned"
  UNION ALL SELECT now() UNION ALL SELECT now() + interval '2 months'
) AS a;--> statement-breakpoint
INSERT INTO "usage_hourly" SELECT "project_id", "tenant_id", "resource", "hour", "source", "quantity", "requested", "used", "gpu_utilization", "ingested_at" FROM "usage_hourly_unpartitioned";--> statement-breakpoint
INSERT INTO "usage_daily" SELECT "project_id", "tenant_id", "resource", "day", "quantity", "cost", "unpriced_quantity", "gpu_measured_hours", "gpu_busy_hours", "has_demo" FROM "usage_daily_unpartitioned";--> statement-breakpoint
DROP TABLE "usage_hourly_unpartitioned";--> statement-breakpoint
DROP TABLE "usage_daily_unpartitioned";--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD CONSTRAINT "usage_hourly_pk" PRIMARY KEY("project_id","hour","resource","source");--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_pk" PRIMARY KEY("project_id","day","resource");--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "usage_daily_tenant_day_idx" ON "usage_daily" USING btree ("tenant_id","day");--> statement-breakpoint
CREATE INDEX "usage_daily_day_idx" ON "usage_daily" USING btree ("day");
