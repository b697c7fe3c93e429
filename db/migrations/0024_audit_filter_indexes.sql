-- Hand-edited: the trigram operator classes of the audit filters' indexes come from pg_trgm, a trusted extension
-- since PostgreSQL 13 (the database owner may create it); PGlite loads it in db/client.ts.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
DROP INDEX "quota_requests_status_idx";--> statement-breakpoint
CREATE INDEX "audit_events_at_idx" ON "audit_events" USING btree ("at");--> statement-breakpoint
CREATE INDEX "audit_events_seq_at_idx" ON "audit_events" USING btree ("seq","at");--> statement-breakpoint
CREATE INDEX "audit_events_actor_label_trgm_idx" ON "audit_events" USING gin ("actor_label" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "audit_events_action_trgm_idx" ON "audit_events" USING gin ("action" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "audit_events_target_trgm_idx" ON "audit_events" USING gin ("target_id" gin_trgm_ops,"target_type" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "quota_requests_status_idx" ON "quota_requests" USING btree ("status","created_at","id");