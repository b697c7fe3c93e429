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
-- Hand-written: the quota basis generation (lib/quota/platform-quota.ts) moves once in every transaction that
-- changes what the basis is computed from. Deferred constraint triggers move it at commit, after the transaction's
-- other work: the one row's lock is the last a writer takes, so two writers wait for each other only there, never
-- in a cycle; a transaction-local flag keeps it to one UPDATE however many rows the transaction writes.
INSERT INTO "quota_basis_versions" ("id", "generation") VALUES (1, 0) ON CONFLICT DO NOTHING;--> statement-breakpoint
CREATE OR REPLACE FUNCTION quota_basis_bump() RETURNS trigger AS $$
BEGIN
  IF current_setting('allot.quota_basis_bumped', true) IS DISTINCT FROM 'yes' THEN
    UPDATE quota_basis_versions SET generation = generation + 1 WHERE id = 1;
    PERFORM set_config('allot.quota_basis_bumped', 'yes', true);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;--> statement-breakpoint
CREATE CONSTRAINT TRIGGER quota_basis_quota_grants AFTER INSERT OR UPDATE OR DELETE ON "quota_grants" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE TRIGGER quota_basis_quota_grants_truncate AFTER TRUNCATE ON "quota_grants" FOR EACH STATEMENT EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE CONSTRAINT TRIGGER quota_basis_quota_grant_lines AFTER INSERT OR UPDATE OR DELETE ON "quota_grant_lines" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE TRIGGER quota_basis_quota_grant_lines_truncate AFTER TRUNCATE ON "quota_grant_lines" FOR EACH STATEMENT EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE CONSTRAINT TRIGGER quota_basis_project_quota_settings AFTER INSERT OR UPDATE OR DELETE ON "project_quota_settings" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE TRIGGER quota_basis_project_quota_settings_truncate AFTER TRUNCATE ON "project_quota_settings" FOR EACH STATEMENT EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE CONSTRAINT TRIGGER quota_basis_projects AFTER INSERT OR UPDATE OR DELETE ON "projects" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE TRIGGER quota_basis_projects_truncate AFTER TRUNCATE ON "projects" FOR EACH STATEMENT EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE CONSTRAINT TRIGGER quota_basis_tenants AFTER INSERT OR UPDATE OR DELETE ON "tenants" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE TRIGGER quota_basis_tenants_truncate AFTER TRUNCATE ON "tenants" FOR EACH STATEMENT EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE CONSTRAINT TRIGGER quota_basis_tenant_quota_envelopes AFTER INSERT OR UPDATE OR DELETE ON "tenant_quota_envelopes" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION quota_basis_bump();--> statement-breakpoint
CREATE TRIGGER quota_basis_tenant_quota_envelopes_truncate AFTER TRUNCATE ON "tenant_quota_envelopes" FOR EACH STATEMENT EXECUTE FUNCTION quota_basis_bump();