CREATE TYPE "public"."cluster_change_status" AS ENUM('pending', 'applying', 'applied', 'recorded', 'failed', 'superseded');--> statement-breakpoint
CREATE TYPE "public"."cluster_object_status" AS ENUM('planned', 'applying', 'applied', 'failed', 'drifted');--> statement-breakpoint
CREATE TABLE "cluster_change_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "cluster_change_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"change_id" bigint NOT NULL,
	"attempt" integer NOT NULL,
	"worker" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"outcome" text,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "cluster_changes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "cluster_changes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" uuid NOT NULL,
	"project_id" uuid,
	"target_key" text NOT NULL,
	"reasons" jsonb NOT NULL,
	"status" "cluster_change_status" DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_by" text,
	"claimed_until" timestamp with time zone,
	"mode" text,
	"objects" jsonb,
	"deletions" jsonb,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "cluster_objects" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"project_id" uuid,
	"api_version" text NOT NULL,
	"kind" text NOT NULL,
	"namespace" text DEFAULT '' NOT NULL,
	"name" text NOT NULL,
	"manifest" jsonb NOT NULL,
	"status" "cluster_object_status" NOT NULL,
	"last_change_id" bigint,
	"drift" jsonb,
	"error" text,
	"applied_at" timestamp with time zone,
	"checked_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "runtime_class" text;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "workload_identity" jsonb;--> statement-breakpoint
ALTER TABLE "cluster_change_attempts" ADD CONSTRAINT "cluster_change_attempts_change_id_cluster_changes_id_fk" FOREIGN KEY ("change_id") REFERENCES "public"."cluster_changes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cluster_changes" ADD CONSTRAINT "cluster_changes_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cluster_changes" ADD CONSTRAINT "cluster_changes_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cluster_objects" ADD CONSTRAINT "cluster_objects_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cluster_objects" ADD CONSTRAINT "cluster_objects_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cluster_change_attempts_change_idx" ON "cluster_change_attempts" USING btree ("change_id","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "cluster_changes_one_pending_per_target" ON "cluster_changes" USING btree ("target_key") WHERE "cluster_changes"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "cluster_changes_due_idx" ON "cluster_changes" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "cluster_changes_target_idx" ON "cluster_changes" USING btree ("target_key","id");--> statement-breakpoint
CREATE INDEX "cluster_changes_project_idx" ON "cluster_changes" USING btree ("project_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "cluster_objects_identity_unique" ON "cluster_objects" USING btree ("kind","namespace","name");--> statement-breakpoint
CREATE INDEX "cluster_objects_project_idx" ON "cluster_objects" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "cluster_objects_tenant_idx" ON "cluster_objects" USING btree ("tenant_id");