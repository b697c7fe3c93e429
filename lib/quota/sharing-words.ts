import type { Fit } from "./capacity";
import type { ApprovalArithmetic, LineArithmetic } from "./sharing-arithmetic";

/**
 * The sharing arithmetic in the words a platform engineer reads at a glance:
 * one sentence per GPU line for the capacity page, one per line a request
 * touches for the approval queue. Pure.
 */

const gpus = (n: number, model: string) => `${n} ${model} GPU${n === 1 ? "" : "s"}`;

/** What peak demand (every guarantee and every burst at once) does to the pools. */
function peakWords(l: LineArithmetic): string {
  if (l.burst === 0) return "No burst limits: nothing can be borrowed beyond the guarantees.";
  const start = `With every burst limit used, ${gpus(l.peak, l.flavor)} could be asked for`;
  return `${start}: ${fitWords(l.peakFit, l)}.`;
}

function fitWords(fit: Fit, l: LineArithmetic): string {
  if (fit.kind === "fits") return `the ${l.capacity.now} present hold that, so borrowing alone makes the autoscaler add nothing`;
  if (fit.kind === "grows") {
    const growth = fit.pools.map((g) => `${g.pool} to ${g.to} nodes (max ${g.max})`).join(", ");
    return `borrowing alone could make the autoscaler grow ${growth}, ${l.growthFromBorrowing} more within the maximum`;
  }
  return `more than even the autoscaler maximum (${l.capacity.atMax}) holds, so borrowing stops there (${l.growthFromBorrowing} more than present at most)`;
}

/** The capacity page's sentence for a GPU line. */
export function lineSentence(l: LineArithmetic): string {
  const held =
    l.guaranteed <= l.capacity.atMin
      ? `${l.guaranteed} of the ${l.capacity.atMin} the pools keep at their autoscaler minimum are guaranteed; ${l.headroomAtMin} left to guarantee.`
      : `${l.guaranteed} are guaranteed, ${-l.headroomAtMin} more than the ${l.capacity.atMin} the pools keep at their autoscaler minimum: if the autoscaler shrinks them, not every guarantee can be met.`;
  return `${l.flavor}: ${held} ${peakWords(l)}`;
}

/** The queue's sentence for a GPU line a request touches: whether the pools hold the guarantees after approval, and what bursts could reach. */
export function approvalSentence(a: ApprovalArithmetic): string {
  const { before: b, after: n } = a;
  const guaranteed = `${gpus(n.guaranteed, n.flavor)} guaranteed across all tenants after approval (${b.guaranteed} now)`;
  const sizes = `at their minimum (${n.capacity.atMin}), now (${n.capacity.now}) and at their maximum (${n.capacity.atMax})`;
  let holds: string;
  if (a.breaksMinimum) holds = `more than the pools keep at their autoscaler minimum (${n.capacity.atMin}): approving as asked is refused, ${Math.max(0, b.headroomAtMin)} more can be guaranteed`;
  else if (n.guaranteed <= n.capacity.atMin) holds = `the pools hold them ${sizes}`;
  else holds = `already more than the pools keep at their minimum (${n.capacity.atMin}); this approval adds no guarantee`;
  const burst = n.burst === b.burst ? "" : ` Burst limits go from ${b.burst} to ${n.burst}.`;
  return `${n.flavor}: ${guaranteed}: ${holds}.${burst} ${peakWords(n)}`;
}
