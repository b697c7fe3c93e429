import { z } from "zod";
import { badRequest } from "./errors";
import { parseFilter, type Filter } from "./filter";

/** Query parameters of a list (RFC 7644 3.4.2): filter, and 1-based startIndex with count. */
export const LIST_RESPONSE_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

export type ListQuery = { filter: Filter | null; startIndex: number; count: number };

const whole = (name: string) =>
  z
    .string()
    .regex(/^-?\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .optional();

export function parseListQuery(params: URLSearchParams): ListQuery {
  const parsed = z.object({ startIndex: whole("startIndex"), count: whole("count") }).safeParse({ startIndex: params.get("startIndex") ?? undefined, count: params.get("count") ?? undefined });
  if (!parsed.success) throw badRequest("invalidValue", parsed.error.issues.map((i) => i.message).join("; "));
  const rawFilter = params.get("filter");
  // Out-of-range values are clamped, not refused: RFC 7644 3.4.2.4 says to treat startIndex < 1 as 1 and count < 0 as 0.
  return {
    filter: rawFilter === null || rawFilter.trim() === "" ? null : parseFilter(rawFilter),
    startIndex: Math.max(1, parsed.data.startIndex ?? 1),
    count: Math.min(MAX_PAGE_SIZE, Math.max(0, parsed.data.count ?? DEFAULT_PAGE_SIZE)),
  };
}

export function listResponse(all: unknown[], query: Pick<ListQuery, "startIndex" | "count">) {
  const page = all.slice(query.startIndex - 1, query.startIndex - 1 + query.count);
  return { schemas: [LIST_RESPONSE_SCHEMA], totalResults: all.length, startIndex: query.startIndex, itemsPerPage: page.length, Resources: page };
}
