import { z } from "zod";
import { monthStartOf } from "./forecast";
import type { Granularity, SpendWindow } from "./spend";
import { oneOf } from "@/lib/input/messages";

/**
 * The window a spend page or export covers. Ranges are named the way the
 * range picker names them; "custom" takes from/to as dates (YYYY-MM-DD), the
 * end day included by the person and made exclusive here. Day and month
 * granularity need whole UTC days; hours are capped so a response stays small.
 */
export const SPEND_RANGES = ["7d", "30d", "90d", "month", "custom"] as const;
export type SpendRange = (typeof SPEND_RANGES)[number];

const DAY_MS = 86_400_000;
const MAX_DAYS = 366 * 3;
const MAX_HOURS = 31 * 24;

// Month 01-12 and day 01-31 in the pattern itself, so the OpenAPI document states them; the refine catches 2026-02-30.
const dayInput = z.string().regex(/^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$/, "Enter a date as YYYY-MM-DD.").refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), "Enter a date that exists.");

export const spendQueryInput = z
  .object({
    range: z.enum(SPEND_RANGES, { message: oneOf(SPEND_RANGES) }).default("30d"),
    from: dayInput.optional(),
    to: dayInput.optional(),
    granularity: z.enum(["hour", "day", "month"], { message: oneOf(["hour", "day", "month"]) }).default("day"),
  })
  .superRefine((q, ctx) => {
    const custom = q.range === "custom" || q.from !== undefined || q.to !== undefined;
    if (!custom) return;
    if (!q.from) ctx.addIssue({ code: "custom", path: ["from"], message: "Enter the first day of a custom range." });
    if (!q.to) ctx.addIssue({ code: "custom", path: ["to"], message: "Enter the last day of a custom range." });
    if (q.from && q.to && q.to < q.from) ctx.addIssue({ code: "custom", path: ["to"], message: "Enter a last day on or after the first." });
  });

export type SpendQuery = z.infer<typeof spendQueryInput>;

export interface ResolvedWindow extends SpendWindow {
  range: SpendRange;
  granularity: Granularity;
  /** The last day included, for people (the window's end is exclusive). */
  lastDay: string;
}

const startOfDay = (t: number) => Math.floor(t / DAY_MS) * DAY_MS;

/**
 * The instants a query covers. Named ranges end with today (its hours so far
 * are in the data); "month" is this calendar month. Returns an error message
 * per field when the window is too long for its granularity.
 */
export function resolveWindow(q: SpendQuery, now: Date): { window: ResolvedWindow } | { errors: Record<string, string[]> } {
  const tomorrow = startOfDay(now.getTime()) + DAY_MS;
  let from: number;
  let to: number;
  let range: SpendRange = q.range;
  if (q.from && q.to) {
    range = "custom";
    from = Date.parse(`${q.from}T00:00:00Z`);
    to = Date.parse(`${q.to}T00:00:00Z`) + DAY_MS;
  } else if (q.range === "month") {
    from = monthStartOf(now).getTime();
    to = tomorrow;
  } else {
    const days = q.range === "7d" ? 7 : q.range === "90d" ? 90 : 30;
    from = tomorrow - days * DAY_MS;
    to = tomorrow;
  }
  const days = (to - from) / DAY_MS;
  if (days > MAX_DAYS) return { errors: { from: [`Choose a window of at most ${MAX_DAYS} days.`] } };
  if (q.granularity === "hour" && days * 24 > MAX_HOURS) return { errors: { granularity: [`Pick day or month: hour granularity covers at most ${MAX_HOURS / 24} days.`] } };
  return {
    window: { from: new Date(from), to: new Date(to), range, granularity: q.granularity, lastDay: new Date(to - DAY_MS).toISOString().slice(0, 10) },
  };
}
