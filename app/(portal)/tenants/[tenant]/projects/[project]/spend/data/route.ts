import { projectSpendReport } from "@/lib/metering/report";
import { spendJson } from "@/lib/server/spend-json";

/** The project's SpendReport as JSON for the spend page's range picker (session auth; 400 bad query, 404 out of reach). */
export async function GET(request: Request, { params }: { params: Promise<{ tenant: string; project: string }> }) {
  const { tenant, project } = await params;
  return spendJson(request, (ctx, window) => projectSpendReport(ctx, tenant, project, window));
}
