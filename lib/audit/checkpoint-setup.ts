import type { AuditCheckpointSettings } from "@/lib/config";

/** One sentence on where checkpoints go, for the start-up log and the audit page. */
export function describeCheckpointSetup(s: AuditCheckpointSettings): string {
  if (!s.signing) {
    return s.publicKey
      ? `Audit checkpoints: verified against key ${s.keyId}${s.dir ? ` from ${s.dir}` : ""}; this process signs none (no ALLOT_AUDIT_CHECKPOINT_KEY_FILE).`
      : "Audit checkpoints: off (no ALLOT_AUDIT_CHECKPOINT_KEY_FILE), so removal of the newest audit events cannot be detected.";
  }
  let webhookHost = "";
  if (s.webhook) webhookHost = new URL(s.webhook.url).host;
  const places = [s.logStream ? "the log stream" : null, s.dir ? `files in ${s.dir}` : null, s.webhook ? `a webhook at ${webhookHost}` : null].filter(Boolean).join(", ");
  const when = s.intervalMinutes > 0 ? `every ${s.intervalMinutes} min when the log moved, and on demand` : "on demand only (ALLOT_AUDIT_CHECKPOINT_INTERVAL_MINUTES=0)";
  return `Audit checkpoints: signed with key ${s.keyId} ${when}, to ${places}.`;
}
