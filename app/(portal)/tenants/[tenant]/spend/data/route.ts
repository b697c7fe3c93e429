import { tenantSpendReport } from "@/lib/metering/report";
import { spendJson } from "@/lib/server/spend-json";

/** The tenant's SpendReport as JSON for the spend page's range picker (session auth; 400 bad query, 404 out of reach). */
export async function GET(request: Request, { params }: { params: Promise<{ tenant: string }> }) {
  const { tenant } = await params;
  return spendJson(request, (ctx, window) => tenantSpendReport(ctx, tenant, window));
}
