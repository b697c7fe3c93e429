ALTER TYPE "public"."project_role" ADD VALUE 'meter';--> statement-breakpoint
CREATE TABLE "project_budgets" (
	"project_id" uuid PRIMARY KEY NOT NULL,
	"monthly_amount" numeric(18, 2) NOT NULL,
	"updated_by" uuid,
	"updated_at" timestamp with time zone NOT NULL,
	"version" integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spend_alerts" (
	"project_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"period" date NOT NULL,
	"detail" text DEFAULT '' NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	CONSTRAINT "spend_alerts_pk" PRIMARY KEY("project_id","kind","period")
);
--> statement-breakpoint
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
	"has_demo" boolean DEFAULT false NOT NULL,
	CONSTRAINT "usage_daily_pk" PRIMARY KEY("project_id","day","resource")
);
--> statement-breakpoint
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
	CONSTRAINT "usage_hourly_pk" PRIMARY KEY("project_id","hour","resource","source"),
	CONSTRAINT "usage_hourly_quantity" CHECK ("usage_hourly"."quantity" >= 0 and "usage_hourly"."quantity" < 1e12),
	CONSTRAINT "usage_hourly_utilization" CHECK ("usage_hourly"."gpu_utilization" is null or ("usage_hourly"."gpu_utilization" >= 0 and "usage_hourly"."gpu_utilization" <= 1))
);
--> statement-breakpoint
CREATE TABLE "usage_sources" (
	"source" text PRIMARY KEY NOT NULL,
	"next_hour" timestamp with time zone NOT NULL,
	"last_run_at" timestamp with time zone,
	"last_error" text,
	"last_samples" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "project_budgets" ADD CONSTRAINT "project_budgets_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_budgets" ADD CONSTRAINT "project_budgets_updated_by_principals_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spend_alerts" ADD CONSTRAINT "spend_alerts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "spend_alerts_sent_idx" ON "spend_alerts" USING btree ("sent_at");--> statement-breakpoint
CREATE INDEX "usage_daily_tenant_day_idx" ON "usage_daily" USING btree ("tenant_id","day");--> statement-breakpoint
CREATE INDEX "usage_daily_day_idx" ON "usage_daily" USING btree ("day");