import "server-only";
import { notFound } from "next/navigation";
import type { CommandContext } from "@/lib/auth/context";
import { currentContext } from "@/lib/auth/current-actor";
import { errorResponse, errorToResponse, type ApiErrorBody } from "@/lib/api/errors";
import { AppError } from "@/lib/errors";
import { spendWindowOf } from "@/lib/metering/inputs";
import type { SpendReport } from "@/lib/metering/report";
import type { ResolvedWindow } from "@/lib/metering/window";

/**
 * The spend pages and their JSON routes read one query (range, from, to,
 * granularity: lib/metering/window.ts) and answer with one SpendReport; the
 * report functions decide access. Routes answer 400 with the problems by
 * field, 404 when out of reach (the API's error envelope); pages fall back to
 * the default window.
 */

export type SearchParams = Record<string, string | string[] | undefined>;
/** A SpendReport as it travels as JSON (the routes' body, the pages' first data): instants as ISO text. */
export type SpendData = Omit<SpendReport, "window"> & { window: Omit<ResolvedWindow, "from" | "to"> & { from: string; to: string } };
/** A failed data request's body: the API's error envelope. */
export type SpendError = ApiErrorBody;
export type SpendQueryParams = Partial<Record<"range" | "from" | "to" | "granularity", string>>;

/** The spend query's own parameters from a URL, first value of each, empty ones left out. */
export function spendQueryParams(search: SearchParams): SpendQueryParams {
  const out: SpendQueryParams = {};
  for (const name of ["range", "from", "to", "granularity"] as const) {
    const v = search[name];
    const first = Array.isArray(v) ? v[0] : v;
    if (first) out[name] = first;
  }
  return out;
}

const windowOf = (params: SpendQueryParams, now: Date) => spendWindowOf(new URLSearchParams(params), now);

type Produce = (ctx: CommandContext, window: ResolvedWindow) => Promise<SpendReport>;

/**
 * GET handler body of a spend data route: the report as JSON for the
 * signed-in person; a refusal in the API's error envelope with its statuses.
 */
export async function spendJson(request: Request, produce: Produce): Promise<Response> {
  // Outside the try: reading the session may throw Next's own signals (dynamic rendering), which must reach Next.
  const ctx = await currentContext();
  if (!ctx) return errorResponse("unauthenticated");
  try {
    const resolved = spendWindowOf(new URL(request.url).searchParams, ctx.now);
    if ("errors" in resolved) return errorResponse("validation", undefined, { fields: resolved.errors });
    return Response.json(await produce(ctx, resolved.window), { headers: { "Cache-Control": "private, no-store" } });
  } catch (error) {
    return errorToResponse(error, "spend data");
  }
}

export interface SpendPageData {
  report: SpendReport;
  /** The same, as the client receives it from the data route. */
  data: SpendData;
  /** The query the report answers (the default one when the URL's was not valid). */
  query: SpendQueryParams;
  /** Problems with the URL's query, when the page fell back to the default window. */
  urlErrors: Record<string, string[]> | null;
}

/** A spend page's first report; notFound() when the scope is out of reach. */
export async function spendPageData(ctx: CommandContext, searchParams: SearchParams, produce: Produce): Promise<SpendPageData> {
  const asked = spendQueryParams(searchParams);
  let resolved = windowOf(asked, ctx.now);
  let query = asked;
  let urlErrors: Record<string, string[]> | null = null;
  if ("errors" in resolved) {
    urlErrors = resolved.errors;
    query = {};
    resolved = windowOf(query, ctx.now);
    if ("errors" in resolved) throw new Error("the default spend window does not resolve");
  }
  try {
    const report = await produce(ctx, resolved.window);
    return { report, data: JSON.parse(JSON.stringify(report)) as SpendData, query, urlErrors };
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  }
}
