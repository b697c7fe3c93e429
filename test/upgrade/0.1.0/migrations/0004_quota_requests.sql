CREATE TYPE "public"."quota_request_status" AS ENUM('pending', 'approved', 'auto_approved', 'rejected', 'cancelled', 'expired', 'applied', 'apply_failed');--> statement-breakpoint
CREATE TYPE "public"."tenant_request_status" AS ENUM('pending', 'approved', 'rejected', 'cancelled');--> statement-breakpoint
CREATE TABLE "node_pools" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"gpu_model" text,
	"gpu_resource" text,
	"gpus_per_node" integer DEFAULT 0 NOT NULL,
	"node_count" integer NOT NULL,
	"min_nodes" integer,
	"max_nodes" integer,
	"cpu_per_node" double precision NOT NULL,
	"memory_bytes_per_node" bigint NOT NULL,
	"dedicated_tenant_id" uuid,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "node_pools_gpu_pair" CHECK (("node_pools"."gpu_model" is null) = ("node_pools"."gpu_resource" is null)),
	CONSTRAINT "node_pools_counts" CHECK ("node_pools"."node_count" >= 0 and "node_pools"."gpus_per_node" >= 0 and "node_pools"."cpu_per_node" >= 0 and "node_pools"."memory_bytes_per_node" >= 0)
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"principal_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"title" text NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"link" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"read_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "quota_grants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"request_id" uuid,
	"gpu_model" text,
	"gpu_resource" text,
	"gpu_count" integer DEFAULT 0 NOT NULL,
	"cpu_cores" double precision DEFAULT 0 NOT NULL,
	"memory_bytes" bigint DEFAULT 0 NOT NULL,
	"storage_bytes" bigint DEFAULT 0 NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone,
	"expiry_warned_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "quota_request_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "quota_request_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"request_id" uuid NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"actor_principal_id" uuid,
	"actor_label" text NOT NULL,
	"kind" text NOT NULL,
	"detail" jsonb
);
--> statement-breakpoint
CREATE TABLE "quota_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"requested_by" uuid,
	"gpu_model" text,
	"gpu_count" integer DEFAULT 0 NOT NULL,
	"cpu_cores" double precision DEFAULT 0 NOT NULL,
	"memory_bytes" bigint DEFAULT 0 NOT NULL,
	"storage_bytes" bigint DEFAULT 0 NOT NULL,
	"ends_at" timestamp with time zone,
	"justification" text NOT NULL,
	"status" "quota_request_status" DEFAULT 'pending' NOT NULL,
	"monthly_cost" numeric(18, 2) DEFAULT '0' NOT NULL,
	"first_approved_by" uuid,
	"first_approved_at" timestamp with time zone,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"decision_note" text,
	"granted" jsonb,
	"cluster_change_id" bigint,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "quota_requests_amounts" CHECK ("quota_requests"."gpu_count" >= 0 and "quota_requests"."cpu_cores" >= 0 and "quota_requests"."memory_bytes" >= 0 and "quota_requests"."storage_bytes" >= 0),
	CONSTRAINT "quota_requests_gpu_model" CHECK (("quota_requests"."gpu_count" = 0) or ("quota_requests"."gpu_model" is not null))
);
--> statement-breakpoint
CREATE TABLE "rates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"resource" text NOT NULL,
	"unit_price" numeric(18, 6) NOT NULL,
	"effective_from" timestamp with time zone NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rates_price_nonnegative" CHECK ("rates"."unit_price" >= 0)
);
--> statement-breakpoint
CREATE TABLE "tenant_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"requested_by" uuid,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"cost_centre" text DEFAULT '' NOT NULL,
	"isolation_tier" text DEFAULT 'shared' NOT NULL,
	"first_admins" jsonb NOT NULL,
	"project_name" text NOT NULL,
	"project_slug" text NOT NULL,
	"quota" jsonb NOT NULL,
	"justification" text NOT NULL,
	"status" "tenant_request_status" DEFAULT 'pending' NOT NULL,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"decision_note" text,
	"tenant_id" uuid,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_deliveries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"webhook_id" uuid NOT NULL,
	"event" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"url" text NOT NULL,
	"secret" text NOT NULL,
	"events" jsonb NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "node_pools" ADD CONSTRAINT "node_pools_dedicated_tenant_id_tenants_id_fk" FOREIGN KEY ("dedicated_tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_principal_id_principals_id_fk" FOREIGN KEY ("principal_id") REFERENCES "public"."principals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_grants" ADD CONSTRAINT "quota_grants_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_grants" ADD CONSTRAINT "quota_grants_request_id_quota_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."quota_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_request_events" ADD CONSTRAINT "quota_request_events_request_id_quota_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."quota_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_request_events" ADD CONSTRAINT "quota_request_events_actor_principal_id_principals_id_fk" FOREIGN KEY ("actor_principal_id") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_requests" ADD CONSTRAINT "quota_requests_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_requests" ADD CONSTRAINT "quota_requests_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_requests" ADD CONSTRAINT "quota_requests_requested_by_principals_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_requests" ADD CONSTRAINT "quota_requests_first_approved_by_principals_id_fk" FOREIGN KEY ("first_approved_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_requests" ADD CONSTRAINT "quota_requests_decided_by_principals_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_requests" ADD CONSTRAINT "quota_requests_cluster_change_id_cluster_changes_id_fk" FOREIGN KEY ("cluster_change_id") REFERENCES "public"."cluster_changes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rates" ADD CONSTRAINT "rates_created_by_principals_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_requests" ADD CONSTRAINT "tenant_requests_requested_by_principals_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_requests" ADD CONSTRAINT "tenant_requests_decided_by_principals_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_requests" ADD CONSTRAINT "tenant_requests_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "node_pools_name_unique" ON "node_pools" USING btree ("name");--> statement-breakpoint
CREATE INDEX "notifications_principal_idx" ON "notifications" USING btree ("principal_id","created_at");--> statement-breakpoint
CREATE INDEX "quota_grants_project_idx" ON "quota_grants" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "quota_grants_ends_idx" ON "quota_grants" USING btree ("ends_at") WHERE "quota_grants"."ends_at" is not null;--> statement-breakpoint
CREATE INDEX "quota_request_events_request_idx" ON "quota_request_events" USING btree ("request_id","id");--> statement-breakpoint
CREATE INDEX "quota_requests_status_idx" ON "quota_requests" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "quota_requests_project_idx" ON "quota_requests" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "rates_resource_from_unique" ON "rates" USING btree ("resource","effective_from");--> statement-breakpoint
CREATE INDEX "tenant_requests_status_idx" ON "tenant_requests" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("status","next_attempt_at");