CREATE TABLE "group_mappings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"project_id" uuid,
	"group_name" text NOT NULL,
	"group_key" text NOT NULL,
	"tenant_role" "tenant_role",
	"project_role" "project_role",
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "group_mappings_one_role" CHECK (("group_mappings"."project_id" is null and "group_mappings"."tenant_role" is not null and "group_mappings"."project_role" is null) or ("group_mappings"."project_id" is not null and "group_mappings"."project_role" is not null and "group_mappings"."tenant_role" is null)),
	CONSTRAINT "group_mappings_no_meter" CHECK ("group_mappings"."project_role" is null or "group_mappings"."project_role"::text <> 'meter')
);
--> statement-breakpoint
CREATE TABLE "principal_claim_groups" (
	"principal_id" uuid NOT NULL,
	"group_key" text NOT NULL,
	"group_name" text NOT NULL,
	"seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "principal_claim_groups_principal_id_group_key_pk" PRIMARY KEY("principal_id","group_key")
);
--> statement-breakpoint
ALTER TABLE "group_mappings" ADD CONSTRAINT "group_mappings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_mappings" ADD CONSTRAINT "group_mappings_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_mappings" ADD CONSTRAINT "group_mappings_created_by_principals_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "principal_claim_groups" ADD CONSTRAINT "principal_claim_groups_principal_id_principals_id_fk" FOREIGN KEY ("principal_id") REFERENCES "public"."principals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "group_mappings_tenant_group_unique" ON "group_mappings" USING btree ("tenant_id","group_key") WHERE "group_mappings"."project_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "group_mappings_project_group_unique" ON "group_mappings" USING btree ("project_id","group_key") WHERE "group_mappings"."project_id" is not null;--> statement-breakpoint
CREATE INDEX "group_mappings_group_key_idx" ON "group_mappings" USING btree ("group_key");--> statement-breakpoint
CREATE INDEX "principal_claim_groups_key_idx" ON "principal_claim_groups" USING btree ("group_key");