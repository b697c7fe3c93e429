import { platformSpendReport } from "@/lib/metering/report";
import { spendJson } from "@/lib/server/spend-json";

/** The platform's SpendReport as JSON for the spend page's range picker (session auth; 400 bad query, 404 out of reach). */
export async function GET(request: Request) {
  return spendJson(request, (ctx, window) => platformSpendReport(ctx, window));
}
