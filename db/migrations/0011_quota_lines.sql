CREATE TABLE "project_quota_settings" (
	"project_id" uuid NOT NULL,
	"flavor" text NOT NULL,
	"resource" text NOT NULL,
	"lend_limit" numeric NOT NULL,
	"updated_by" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "project_quota_settings_project_id_flavor_resource_pk" PRIMARY KEY("project_id","flavor","resource"),
	CONSTRAINT "project_quota_settings_lend_limit" CHECK ("project_quota_settings"."lend_limit" >= 0)
);
--> statement-breakpoint
CREATE TABLE "quota_grant_lines" (
	"grant_id" uuid NOT NULL,
	"flavor" text NOT NULL,
	"resource" text NOT NULL,
	"guarantee" numeric DEFAULT '0' NOT NULL,
	"burst" numeric DEFAULT '0' NOT NULL,
	CONSTRAINT "quota_grant_lines_grant_id_flavor_resource_pk" PRIMARY KEY("grant_id","flavor","resource"),
	CONSTRAINT "quota_grant_lines_amounts" CHECK ("quota_grant_lines"."burst" >= 0)
);
--> statement-breakpoint
CREATE TABLE "quota_request_lines" (
	"request_id" uuid NOT NULL,
	"flavor" text NOT NULL,
	"resource" text NOT NULL,
	"guarantee" numeric DEFAULT '0' NOT NULL,
	"burst" numeric DEFAULT '0' NOT NULL,
	CONSTRAINT "quota_request_lines_request_id_flavor_resource_pk" PRIMARY KEY("request_id","flavor","resource"),
	CONSTRAINT "quota_request_lines_amounts" CHECK ("quota_request_lines"."guarantee" >= 0 and "quota_request_lines"."burst" >= 0)
);
--> statement-breakpoint
CREATE TABLE "tenant_quota_envelopes" (
	"tenant_id" uuid NOT NULL,
	"flavor" text NOT NULL,
	"resource" text NOT NULL,
	"guarantee" numeric DEFAULT '0' NOT NULL,
	"burst" numeric DEFAULT '0' NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"updated_by" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenant_quota_envelopes_tenant_id_flavor_resource_pk" PRIMARY KEY("tenant_id","flavor","resource"),
	CONSTRAINT "tenant_quota_envelopes_amounts" CHECK ("tenant_quota_envelopes"."guarantee" >= 0 and "tenant_quota_envelopes"."burst" >= 0)
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "fair_share_weight" numeric DEFAULT '1' NOT NULL;--> statement-breakpoint
ALTER TABLE "node_pools" ADD COLUMN "node_labels" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "node_pools" ADD COLUMN "node_taints" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "node_pools" ADD COLUMN "gpu_sharing" text DEFAULT 'exclusive' NOT NULL;--> statement-breakpoint
ALTER TABLE "node_pools" ADD COLUMN "gpu_slices" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "node_pools" ADD COLUMN "tiers" jsonb;--> statement-breakpoint
ALTER TABLE "quota_grants" ADD COLUMN "source" text DEFAULT 'request' NOT NULL;--> statement-breakpoint
ALTER TABLE "quota_grants" ADD COLUMN "transfer_id" uuid;--> statement-breakpoint
ALTER TABLE "project_quota_settings" ADD CONSTRAINT "project_quota_settings_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_quota_settings" ADD CONSTRAINT "project_quota_settings_updated_by_principals_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_grant_lines" ADD CONSTRAINT "quota_grant_lines_grant_id_quota_grants_id_fk" FOREIGN KEY ("grant_id") REFERENCES "public"."quota_grants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_request_lines" ADD CONSTRAINT "quota_request_lines_request_id_quota_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."quota_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_quota_envelopes" ADD CONSTRAINT "tenant_quota_envelopes_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_quota_envelopes" ADD CONSTRAINT "tenant_quota_envelopes_updated_by_principals_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "quota_grants_transfer_idx" ON "quota_grants" USING btree ("transfer_id") WHERE "quota_grants"."transfer_id" is not null;--> statement-breakpoint
ALTER TABLE "node_pools" ADD CONSTRAINT "node_pools_gpu_sharing" CHECK ("node_pools"."gpu_sharing" in ('exclusive', 'mig', 'time_sliced') and "node_pools"."gpu_slices" >= 1 and ("node_pools"."gpu_sharing" = 'time_sliced' or "node_pools"."gpu_slices" = 1));--> statement-breakpoint
-- Pools that serve a MIG profile (mixed strategy: the resource names the profile) share their GPUs as MIG slices.
UPDATE "node_pools" SET "gpu_sharing" = 'mig' WHERE "gpu_resource" LIKE 'nvidia.com/mig-%';--> statement-breakpoint
-- Expand: every grant and request becomes lines, keeping its fixed columns (the previous release reads them while a rollout runs).
-- A GPU line's flavour is the GPU model; CPU, memory and storage are of the "default" flavour. Zero amounts make no line.
INSERT INTO "quota_grant_lines" ("grant_id", "flavor", "resource", "guarantee")
SELECT "id", "gpu_model", COALESCE("gpu_resource", 'nvidia.com/gpu'), "gpu_count" FROM "quota_grants" WHERE "gpu_count" > 0 AND "gpu_model" IS NOT NULL
UNION ALL SELECT "id", 'default', 'cpu', "cpu_cores"::numeric FROM "quota_grants" WHERE "cpu_cores" > 0
UNION ALL SELECT "id", 'default', 'memory', "memory_bytes" FROM "quota_grants" WHERE "memory_bytes" > 0
UNION ALL SELECT "id", 'default', 'storage', "storage_bytes" FROM "quota_grants" WHERE "storage_bytes" > 0;--> statement-breakpoint
INSERT INTO "quota_request_lines" ("request_id", "flavor", "resource", "guarantee")
SELECT r."id", r."gpu_model", COALESCE((SELECT p."gpu_resource" FROM "node_pools" p WHERE p."gpu_model" = r."gpu_model" ORDER BY p."name" LIMIT 1), 'nvidia.com/gpu'), r."gpu_count" FROM "quota_requests" r WHERE r."gpu_count" > 0 AND r."gpu_model" IS NOT NULL
UNION ALL SELECT "id", 'default', 'cpu', "cpu_cores"::numeric FROM "quota_requests" WHERE "cpu_cores" > 0
UNION ALL SELECT "id", 'default', 'memory', "memory_bytes" FROM "quota_requests" WHERE "memory_bytes" > 0
UNION ALL SELECT "id", 'default', 'storage', "storage_bytes" FROM "quota_requests" WHERE "storage_bytes" > 0;--> statement-breakpoint
-- While the previous release still runs beside this one (a rolling upgrade), it inserts grants and requests with the fixed columns
-- only. At commit, a row that has no lines gets them from its columns, as the backfill above made them; rows this release
-- writes have their lines by then and are left alone.
CREATE FUNCTION "quota_lines_from_columns"() RETURNS trigger AS $$
BEGIN
  IF TG_TABLE_NAME = 'quota_grants' THEN
    IF NOT EXISTS (SELECT 1 FROM "quota_grant_lines" WHERE "grant_id" = NEW."id") THEN
      INSERT INTO "quota_grant_lines" ("grant_id", "flavor", "resource", "guarantee")
      SELECT NEW."id", NEW."gpu_model", COALESCE(NEW."gpu_resource", 'nvidia.com/gpu'), NEW."gpu_count" WHERE NEW."gpu_count" > 0 AND NEW."gpu_model" IS NOT NULL
      UNION ALL SELECT NEW."id", 'default', 'cpu', NEW."cpu_cores"::numeric WHERE NEW."cpu_cores" > 0
      UNION ALL SELECT NEW."id", 'default', 'memory', NEW."memory_bytes" WHERE NEW."memory_bytes" > 0
      UNION ALL SELECT NEW."id", 'default', 'storage', NEW."storage_bytes" WHERE NEW."storage_bytes" > 0;
    END IF;
  ELSE
    IF NOT EXISTS (SELECT 1 FROM "quota_request_lines" WHERE "request_id" = NEW."id") THEN
      INSERT INTO "quota_request_lines" ("request_id", "flavor", "resource", "guarantee")
      SELECT NEW."id", NEW."gpu_model", COALESCE((SELECT p."gpu_resource" FROM "node_pools" p WHERE p."gpu_model" = NEW."gpu_model" ORDER BY p."name" LIMIT 1), 'nvidia.com/gpu'), NEW."gpu_count" WHERE NEW."gpu_count" > 0 AND NEW."gpu_model" IS NOT NULL
      UNION ALL SELECT NEW."id", 'default', 'cpu', NEW."cpu_cores"::numeric WHERE NEW."cpu_cores" > 0
      UNION ALL SELECT NEW."id", 'default', 'memory', NEW."memory_bytes" WHERE NEW."memory_bytes" > 0
      UNION ALL SELECT NEW."id", 'default', 'storage', NEW."storage_bytes" WHERE NEW."storage_bytes" > 0;
    END IF;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "quota_grants_lines_from_columns" AFTER INSERT ON "quota_grants" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "quota_lines_from_columns"();--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "quota_requests_lines_from_columns" AFTER INSERT ON "quota_requests" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "quota_lines_from_columns"();
