import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { instanceSettings } from "@/db/schema";
import { config } from "@/lib/config";
import { IDLE_COST_MODES, type IdleCostMode } from "./chargeback";

/**
 * The idle cost rule over time. One Allot instance is one cluster, so the
 * rule is an instance setting: the env default (ALLOT_IDLE_COST) rules every
 * day before the first change made in the portal, and each change rules from
 * the start of the UTC day after it was made. A day is reported under the
 * rule in force at its start, so a change never rewrites a day already
 * reported: every idle figure stays traceable to the rule it was charged by.
 */
export const IDLE_COST_KEY = "idle_cost_mode";

export interface IdleModeChange {
  mode: IdleCostMode;
  effectiveFrom: Date;
}

export interface IdleModeHistory {
  /** The rule before the first change. */
  initial: IdleCostMode;
  /** Changes, oldest first. */
  changes: IdleModeChange[];
}

const stored = z.object({ changes: z.array(z.object({ mode: z.enum(IDLE_COST_MODES), effectiveFrom: z.iso.datetime() })) });

export async function loadIdleModeHistory(db: Database): Promise<IdleModeHistory> {
  const [row] = await db.select().from(instanceSettings).where(eq(instanceSettings.key, IDLE_COST_KEY));
  const parsed = stored.safeParse(row?.value ?? { changes: [] });
  // A stored value this version cannot read is an operator's hand edit: refuse to report under a guessed rule.
  if (!parsed.success) throw new Error(`instance setting ${IDLE_COST_KEY} is not a list of idle cost changes`);
  return {
    initial: config().idleCostDefault,
    changes: parsed.data.changes.map((c) => ({ mode: c.mode, effectiveFrom: new Date(c.effectiveFrom) })).sort((a, b) => a.effectiveFrom.getTime() - b.effectiveFrom.getTime()),
  };
}

/** The stored form of a history's changes. */
export const storedChanges = (changes: readonly IdleModeChange[]) => ({ changes: changes.map((c) => ({ mode: c.mode, effectiveFrom: c.effectiveFrom.toISOString() })) });

/** The rule in force at an instant. */
export function idleModeAt(history: IdleModeHistory, at: Date): IdleCostMode {
  let mode = history.initial;
  for (const c of history.changes) if (c.effectiveFrom.getTime() <= at.getTime()) mode = c.mode;
  return mode;
}

/** When a change made at `now` takes effect: the start of the next UTC day. */
export function nextUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** The rule in force at a window's days, as spans [from, to) cut to the window, in order. */
export function idleModeSpans(history: IdleModeHistory, from: Date, to: Date): { mode: IdleCostMode; from: Date; to: Date }[] {
  const spans: { mode: IdleCostMode; from: Date; to: Date }[] = [];
  let start = from;
  let mode = idleModeAt(history, from);
  for (const c of history.changes) {
    if (c.effectiveFrom <= from || c.effectiveFrom >= to) continue;
    if (c.mode !== mode) {
      spans.push({ mode, from: start, to: c.effectiveFrom });
      start = c.effectiveFrom;
      mode = c.mode;
    }
  }
  if (to > start) spans.push({ mode, from: start, to });
  return spans;
}

const day = (d: Date) => d.toISOString().slice(0, 10);
const RULE: Record<IdleCostMode, string> = {
  apart: "idle capacity cost is shown apart, beside the projects, and charged to no one",
  chargeback:
    "each UTC day's idle capacity cost is charged back to tenants in proportion to the value of their guarantees in force that day (guaranteed GPUs, cores and memory, hour by hour at that hour's rates), and within a tenant to its projects the same way; a day with no guarantees in force keeps its idle apart",
};

/** The rule of a window in a sentence, naming the days of each rule where it changed inside the window. */
export function idleRuleSentence(spans: readonly { mode: IdleCostMode; from: Date; to: Date }[]): string {
  if (spans.length <= 1) {
    const rule = RULE[spans[0]?.mode ?? "apart"];
    return `${rule.charAt(0).toUpperCase()}${rule.slice(1)}.`;
  }
  return spans
    .map((s, i) => {
      const text = `from ${day(s.from)} to ${day(new Date(s.to.getTime() - 1))}, ${RULE[s.mode]}`;
      return i === 0 ? text.charAt(0).toUpperCase() + text.slice(1) : text;
    })
    .join("; ")
    .concat(".");
}
