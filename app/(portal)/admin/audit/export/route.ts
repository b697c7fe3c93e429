import { AUDIT_CSV_COLUMNS } from "@/lib/audit/csv";
import { auditFilterFromSearchParams } from "@/lib/audit/filter-params";
import { listAuditEvents } from "@/lib/audit/queries";
import { toCsv } from "@/lib/csv";
import { csvDownload } from "@/lib/server/csv-download";

export function GET(request: Request) {
  const { filter } = auditFilterFromSearchParams(Object.fromEntries(new URL(request.url).searchParams), { limit: 5000 });
  return csvDownload(async (ctx) => {
    const { events } = await listAuditEvents(ctx, filter);
    return { csv: toCsv(events, AUDIT_CSV_COLUMNS), filename: "allot-audit.csv" };
  });
}
