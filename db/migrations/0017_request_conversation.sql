CREATE TABLE "quota_request_comments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"request_id" uuid NOT NULL,
	"author_principal_id" uuid,
	"author_label" text NOT NULL,
	"revision" integer NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "quota_request_revisions" (
	"request_id" uuid NOT NULL,
	"revision" integer NOT NULL,
	"gpu_model" text,
	"gpu_count" integer NOT NULL,
	"cpu_cores" double precision NOT NULL,
	"memory_bytes" bigint NOT NULL,
	"storage_bytes" bigint NOT NULL,
	"lines" jsonb NOT NULL,
	"ends_at" timestamp with time zone,
	"justification" text NOT NULL,
	"monthly_cost" numeric(18, 2) NOT NULL,
	"written_at" timestamp with time zone NOT NULL,
	"replaced_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "quota_requests" ADD COLUMN "revision" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "quota_request_comments" ADD CONSTRAINT "quota_request_comments_request_id_quota_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."quota_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_request_comments" ADD CONSTRAINT "quota_request_comments_author_principal_id_principals_id_fk" FOREIGN KEY ("author_principal_id") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quota_request_revisions" ADD CONSTRAINT "quota_request_revisions_request_id_quota_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."quota_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "quota_request_comments_request_idx" ON "quota_request_comments" USING btree ("request_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "quota_request_revisions_unique" ON "quota_request_revisions" USING btree ("request_id","revision");