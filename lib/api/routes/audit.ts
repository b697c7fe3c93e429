import "server-only";
import { z } from "zod";
import { auditFilterInput, listAuditEvents } from "@/lib/audit/queries";
import { toCsv } from "@/lib/csv";
import { AUDIT_CSV_COLUMNS } from "@/lib/audit/csv";
import { apiRoute } from "../route";
import { auditEventOut } from "../schemas";

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
