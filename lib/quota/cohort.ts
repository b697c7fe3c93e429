import { sumLines, type QuotaLine } from "./lines";

/**
 * A tenant's cohort as an approver weighs a request on one line: what its
 * projects are guaranteed together, how much they may burst, what they lend
 * (guarantee a project lets others borrow while unused), and each project's
 * fair share: its weight over the cohort's weights, which is how Kueue
 * divides what is borrowed when capacity is scarce. Before and after the
 * request, so the approver sees what the approval changes. Pure: no I/O.
 */

export interface CohortMember {
  slug: string;
  name: string;
  weight: number;
  /** The project's summed lines in force, with its lend limits applied. */
  lines: QuotaLine[];
}

export interface CohortFigures {
  guarantee: number;
  burst: number;
  /** What the cohort's projects let others borrow of their guarantees. */
  lendable: number;
  /** Per project holding the line: guarantee, burst, weight, and its fair share of borrowed capacity (weight over the weights). */
  members: { slug: string; name: string; guarantee: number; burst: number; weight: number; fairShare: number }[];
}

const sameLine = (l: { flavor: string; resource: string }, line: { flavor: string; resource: string }) => l.flavor === line.flavor && l.resource === line.resource;

export function cohortFigures(members: readonly CohortMember[], line: { flavor: string; resource: string }): CohortFigures {
  const holding = members
    .map((m) => {
      const l = m.lines.find((x) => sameLine(x, line));
      return { m, guarantee: Math.max(0, l?.guarantee ?? 0), burst: l?.burst ?? 0, lends: l ? (l.lendLimit ?? Math.max(0, l.guarantee)) : 0 };
    })
    .filter((h) => h.guarantee > 0 || h.burst > 0);
  const weights = holding.reduce((s, h) => s + h.m.weight, 0);
  return {
    guarantee: holding.reduce((s, h) => s + h.guarantee, 0),
    burst: holding.reduce((s, h) => s + h.burst, 0),
    lendable: holding.reduce((s, h) => s + h.lends, 0),
    members: holding.map((h) => ({ slug: h.m.slug, name: h.m.name, guarantee: h.guarantee, burst: h.burst, weight: h.m.weight, fairShare: weights > 0 ? h.m.weight / weights : 0 })),
  };
}

/** The cohort before and after `added` lines join `projectSlug`'s, on each line the request touches. */
export function cohortPicture(members: readonly CohortMember[], projectSlug: string, added: readonly QuotaLine[]): { line: { flavor: string; resource: string }; before: CohortFigures; after: CohortFigures }[] {
  const after = members.map((m) => (m.slug === projectSlug ? { ...m, lines: mergeKeepingLimits(m.lines, added) } : m));
  return added
    .filter((l) => l.resource !== "storage" && (l.guarantee !== 0 || l.burst !== 0))
    .map((l) => ({ line: { flavor: l.flavor, resource: l.resource }, before: cohortFigures(members, l), after: cohortFigures(after, l) }));
}

/** Lines plus more, the project's lend limits kept (a limit stays a limit, at most the new guarantee). */
function mergeKeepingLimits(lines: readonly QuotaLine[], added: readonly QuotaLine[]): QuotaLine[] {
  return sumLines([...lines, ...added]).map((l) => {
    const limit = lines.find((x) => sameLine(x, l))?.lendLimit ?? null;
    return { ...l, lendLimit: limit === null ? null : Math.min(limit, l.guarantee) };
  });
}
