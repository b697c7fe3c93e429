import type { listAuditEvents } from "./queries";

type AuditRow = Awaited<ReturnType<typeof listAuditEvents>>["events"][number];

/** Columns of the audit CSV export, shared by the portal download and the API. */
export const AUDIT_CSV_COLUMNS = [
  { header: "seq", value: (e: AuditRow) => e.seq },
  { header: "at", value: (e: AuditRow) => e.at },
  { header: "actor", value: (e: AuditRow) => e.actorLabel },
  { header: "actor_id", value: (e: AuditRow) => e.actorPrincipalId },
  { header: "tenant", value: (e: AuditRow) => e.tenantSlug },
  { header: "action", value: (e: AuditRow) => e.action },
  { header: "target_type", value: (e: AuditRow) => e.targetType },
  { header: "target_id", value: (e: AuditRow) => e.targetId },
  { header: "before", value: (e: AuditRow) => e.before },
  { header: "after", value: (e: AuditRow) => e.after },
  { header: "hash", value: (e: AuditRow) => e.hash },
] as const;

