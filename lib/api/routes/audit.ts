import "server-only";
import { z } from "zod";
import { auditFilterInput, listAuditEvents } from "@/lib/audit/queries";
import { toCsv } from "@/lib/csv";
import { apiRoute } from "../route";
import { auditEventOut } from "../schemas";

type AuditRow = Awaited<ReturnType<typeof listAuditEvents>>["events"][number];

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

export const listAudit = apiRoute({
  method: "GET",
  path: "/api/v1/audit",
  summary: "The audit log, newest first: all tenants for platform admins, ?tenant=<slug> for tenant admins (?format=csv for CSV)",
  tag: "Audit",
  params: z.object({}),
  query: auditFilterInput,
  csv: true,
  response: z.object({ events: z.array(auditEventOut) }),
  async handler(ctx, { query, format }) {
    const { events } = await listAuditEvents(ctx, query);
    if (format === "csv") return { csv: toCsv(events, AUDIT_CSV_COLUMNS), filename: `allot-audit${query.tenant ? `-${query.tenant}` : ""}.csv` };
    return { events };
  },
});
