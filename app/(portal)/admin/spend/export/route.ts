import { systemClock } from "@/lib/clock";
import { badWindowResponse, focusCsvFile } from "@/lib/metering/focus-query";
import { spendWindowOf } from "@/lib/metering/inputs";
import { csvDownload } from "@/lib/server/csv-download";

/** Every tenant's spend over the page's window as FinOps FOCUS CSV (platform admins). */
export function GET(request: Request) {
  const resolved = spendWindowOf(new URL(request.url).searchParams, systemClock());
  if ("errors" in resolved) return badWindowResponse(resolved.errors);
  return csvDownload((ctx) => focusCsvFile(ctx, { kind: "platform" }, resolved.window));
}
