import { auditFilterInput, type AuditFilter } from "./queries";

/** Filters from a page's search params; dates are whole days (UTC) as the filter form sends them. */
export function auditFilterFromSearchParams(params: Record<string, string | string[] | undefined>, overrides: Partial<AuditFilter> = {}) {
  const raw = Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => typeof e[1] === "string" && e[1] !== ""));
  const parsed = auditFilterInput.safeParse({ ...raw, ...overrides });
  return { filter: parsed.success ? parsed.data : auditFilterInput.parse(overrides), raw, invalid: !parsed.success };
}
