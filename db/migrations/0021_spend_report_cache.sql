CREATE TABLE "spend_report_cache" (
	"cache_key" text PRIMARY KEY NOT NULL,
	"scope" text NOT NULL,
	"fingerprint" text NOT NULL,
	"body" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "spend_versions" (
	"name" text PRIMARY KEY NOT NULL,
	"generation" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_generations" (
	"project_id" uuid PRIMARY KEY NOT NULL,
	"generation" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_generations" ADD CONSTRAINT "usage_generations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "spend_report_cache_computed_idx" ON "spend_report_cache" USING btree ("computed_at");