-- Hand-edited: the trigram operator classes of the audit filters' indexes come from pg_trgm, a trusted extension
-- since PostgreSQL 13 (the database owner may create it); PGlite loads it in db/client.ts.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE TABLE "quota_basis_versions" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"generation" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "quota_basis_versions_one_row" CHECK ("quota_basis_versions"."id" = 1)
);
--> statement-breakpoint
DROP INDEX "quota_requests_status_idx";--> statement-breakpoint
CREATE INDEX "audit_events_at_idx" ON "audit_events" USING btree ("at");--> statement-breakpoint
CREATE INDEX "audit_events_seq_at_idx" ON "audit_events" USING btree ("seq","at");--> statement-breakpoint
CREATE INDEX "audit_events_actor_label_trgm_idx" ON "audit_events" USING gin ("actor_label" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "audit_events_action_trgm_idx" ON "audit_events" USING gin ("action" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "audit_events_target_trgm_idx" ON "audit_events" USING gin ("target_id" gin_trgm_ops,"target_type" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "quota_requests_status_idx" ON "quota_requests" USING btree ("status","created_at","id");--> statement-breakpoint
-- Hand-written: the quota basis generation (lib/quota/platform-quota.ts) moves with every statement that changes
-- what the basis is computed from, in that statement's transaction.
INSERT INTO "quota_basis_versions" ("id", "generation") VALUES (1, 0) ON CONFLICT DO NOTHING;--> statement-breakpoint
CREATE OR REPLACE FUNCTION quota_basis_bump() RETURNS trigger AS $$
BEGIN
  UPDATE quota_basis_versions SET generation = generation + 1 WHERE id = 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;--> statement-breakpoint
CREATE TRIGGER quota_basis_quota_grants AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "quota_grants" FOR EACH STATEMENT EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE TRIGGER quota_basis_quota_grant_lines AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "quota_grant_lines" FOR EACH STATEMENT EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE TRIGGER quota_basis_project_quota_settings AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "project_quota_settings" FOR EACH STATEMENT EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE TRIGGER quota_basis_projects AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "projects" FOR EACH STATEMENT EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE TRIGGER quota_basis_tenants AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenants" FOR EACH STATEMENT EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE TRIGGER quota_basis_tenant_quota_envelopes AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenant_quota_envelopes" FOR EACH STATEMENT EXECUTE FUNCTION quota_basis_bump();