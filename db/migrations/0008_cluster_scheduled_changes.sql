CREATE TABLE "cluster_scheduled_changes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "cluster_scheduled_changes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" uuid NOT NULL,
	"project_id" uuid,
	"target_key" text NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"enqueued_at" timestamp with time zone,
	"change_id" bigint
);
--> statement-breakpoint
ALTER TABLE "cluster_scheduled_changes" ADD CONSTRAINT "cluster_scheduled_changes_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cluster_scheduled_changes" ADD CONSTRAINT "cluster_scheduled_changes_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cluster_scheduled_changes" ADD CONSTRAINT "cluster_scheduled_changes_change_id_cluster_changes_id_fk" FOREIGN KEY ("change_id") REFERENCES "public"."cluster_changes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cluster_scheduled_changes_target_due_unique" ON "cluster_scheduled_changes" USING btree ("target_key","due_at");--> statement-breakpoint
CREATE INDEX "cluster_scheduled_changes_due_idx" ON "cluster_scheduled_changes" USING btree ("due_at") WHERE "cluster_scheduled_changes"."enqueued_at" is null;