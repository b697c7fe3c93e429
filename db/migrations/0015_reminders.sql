CREATE TYPE "public"."extension_request_status" AS ENUM('pending', 'granted', 'declined');--> statement-breakpoint
CREATE TYPE "public"."reminder_subject" AS ENUM('project_grant', 'api_token');--> statement-breakpoint
CREATE TABLE "access_extension_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"grant_id" uuid NOT NULL,
	"requested_by" uuid NOT NULL,
	"current_expires_at" timestamp with time zone NOT NULL,
	"requested_until" timestamp with time zone NOT NULL,
	"reason" text NOT NULL,
	"status" "extension_request_status" DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"decision_note" text
);
--> statement-breakpoint
CREATE TABLE "reminders_sent" (
	"subject_kind" "reminder_subject" NOT NULL,
	"subject_id" uuid NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"threshold_days" integer NOT NULL,
	"tenant_id" uuid,
	"recipients" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	"mailed_at" timestamp with time zone,
	CONSTRAINT "reminders_sent_pk" PRIMARY KEY("subject_kind","subject_id","expires_at","threshold_days")
);
--> statement-breakpoint
ALTER TABLE "access_extension_requests" ADD CONSTRAINT "access_extension_requests_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_extension_requests" ADD CONSTRAINT "access_extension_requests_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_extension_requests" ADD CONSTRAINT "access_extension_requests_grant_id_project_grants_id_fk" FOREIGN KEY ("grant_id") REFERENCES "public"."project_grants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_extension_requests" ADD CONSTRAINT "access_extension_requests_requested_by_principals_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."principals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "access_extension_requests" ADD CONSTRAINT "access_extension_requests_decided_by_principals_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reminders_sent" ADD CONSTRAINT "reminders_sent_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "access_extension_requests_one_pending" ON "access_extension_requests" USING btree ("grant_id") WHERE "access_extension_requests"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "access_extension_requests_tenant_idx" ON "access_extension_requests" USING btree ("tenant_id","status","created_at");--> statement-breakpoint
CREATE INDEX "reminders_sent_sent_idx" ON "reminders_sent" USING btree ("sent_at");