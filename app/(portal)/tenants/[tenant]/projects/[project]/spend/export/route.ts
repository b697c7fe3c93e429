import { systemClock } from "@/lib/clock";
import { badWindowResponse, focusCsvFile } from "@/lib/metering/focus-query";
import { spendWindowOf } from "@/lib/metering/inputs";
import { csvDownload } from "@/lib/server/csv-download";

/** The project's spend over the page's window as FinOps FOCUS CSV (?range, from, to, granularity as on the page). */
export async function GET(request: Request, { params }: { params: Promise<{ tenant: string; project: string }> }) {
  const { tenant, project } = await params;
  const resolved = spendWindowOf(new URL(request.url).searchParams, systemClock());
  if ("errors" in resolved) return badWindowResponse(resolved.errors);
  return csvDownload((ctx) => focusCsvFile(ctx, { kind: "project", tenant, project }, resolved.window));
}
