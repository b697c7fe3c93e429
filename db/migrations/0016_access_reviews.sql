CREATE TYPE "public"."access_review_decision" AS ENUM('keep', 'revoke');--> statement-breakpoint
CREATE TYPE "public"."access_review_item_kind" AS ENUM('membership', 'project_grant', 'collaborator', 'service_account', 'platform_admin');--> statement-breakpoint
CREATE TYPE "public"."access_review_reviewer" AS ENUM('tenant_admins', 'sponsor', 'platform_admins');--> statement-breakpoint
CREATE TYPE "public"."access_review_rule" AS ENUM('revoke', 'keep_and_flag');--> statement-breakpoint
CREATE TABLE "access_review_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"review_id" uuid NOT NULL,
	"kind" "access_review_item_kind" NOT NULL,
	"subject_id" uuid NOT NULL,
	"principal_id" uuid,
	"principal_label" text NOT NULL,
	"principal_email" text,
	"project_id" uuid,
	"project_label" text,
	"access" text NOT NULL,
	"expires_at" timestamp with time zone,
	"detail" jsonb,
	"reviewer" "access_review_reviewer" NOT NULL,
	"reviewer_principal_id" uuid,
	"reviewer_label" text NOT NULL,
	"decision" "access_review_decision",
	"decided_at" timestamp with time zone,
	"decided_by" uuid,
	"decided_by_label" text,
	"flagged" boolean DEFAULT false NOT NULL,
	"note" text,
	CONSTRAINT "access_review_items_decided_whole" CHECK (("access_review_items"."decision" is null) = ("access_review_items"."decided_at" is null) and ("access_review_items"."decision" is null) = ("access_review_items"."decided_by_label" is null))
);
--> statement-breakpoint
CREATE TABLE "access_reviews" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid,
	"title" text NOT NULL,
	"deadline" timestamp with time zone NOT NULL,
	"rule" "access_review_rule" NOT NULL,
	"opened_by" uuid,
	"opened_by_label" text NOT NULL,
	"opened_at" timestamp with time zone NOT NULL,
	"deadline_applied_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "access_review_items" ADD CONSTRAINT "access_review_items_review_id_access_reviews_id_fk" FOREIGN KEY ("review_id") REFERENCES "public"."access_reviews"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_review_items" ADD CONSTRAINT "access_review_items_principal_id_principals_id_fk" FOREIGN KEY ("principal_id") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_review_items" ADD CONSTRAINT "access_review_items_reviewer_principal_id_principals_id_fk" FOREIGN KEY ("reviewer_principal_id") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_review_items" ADD CONSTRAINT "access_review_items_decided_by_principals_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_reviews" ADD CONSTRAINT "access_reviews_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_reviews" ADD CONSTRAINT "access_reviews_opened_by_principals_id_fk" FOREIGN KEY ("opened_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "access_review_items_subject_unique" ON "access_review_items" USING btree ("review_id","kind","subject_id");--> statement-breakpoint
CREATE INDEX "access_review_items_review_idx" ON "access_review_items" USING btree ("review_id");--> statement-breakpoint
CREATE INDEX "access_review_items_reviewer_idx" ON "access_review_items" USING btree ("reviewer_principal_id") WHERE "access_review_items"."decision" is null;--> statement-breakpoint
CREATE INDEX "access_reviews_tenant_idx" ON "access_reviews" USING btree ("tenant_id","opened_at");--> statement-breakpoint
CREATE INDEX "access_reviews_due_idx" ON "access_reviews" USING btree ("deadline") WHERE "access_reviews"."deadline_applied_at" is null;