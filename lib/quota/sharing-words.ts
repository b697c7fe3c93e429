import { GiB } from "./amounts";
import type { Fit } from "./capacity";
import { isComputeLine, type ApprovalArithmetic, type LineArithmetic } from "./sharing-arithmetic";

/**
 * The sharing arithmetic in the words a platform engineer reads at a glance:
 * one sentence per GPU line for the capacity page, one per line a request
 * touches for the approval queue (GPU lines, and CPU and memory when a
 * request asks to borrow them). Pure.
 */

const num = (n: number) => (Math.round(n * 10) / 10).toLocaleString("en-US");

/** A figure of a line with its unit: "8 H100 GPUs", "16 cores", "128 GiB of memory". */
export function lineAmount(l: Pick<LineArithmetic, "flavor" | "resource">, n: number): string {
  if (l.resource === "cpu" && isComputeLine(l)) return `${num(n)} core${n === 1 ? "" : "s"}`;
  if (l.resource === "memory" && isComputeLine(l)) return `${num(n / GiB)} GiB of memory`;
  return `${n} ${l.flavor} GPU${n === 1 ? "" : "s"}`;
}

/** A bare figure of a line, in the line's unit (memory in GiB). */
export const lineFigure = (l: Pick<LineArithmetic, "flavor" | "resource">, n: number): string => (l.resource === "memory" && isComputeLine(l) ? num(n / GiB) : l.resource === "cpu" && isComputeLine(l) ? num(n) : String(n));

/** "H100", "CPU", "Memory": how a line is named at the start of its sentence. */
export const lineName = (l: Pick<LineArithmetic, "flavor" | "resource">): string => (isComputeLine(l) ? (l.resource === "cpu" ? "CPU" : "Memory") : l.flavor);

/** What peak demand (every guarantee and every burst at once) does to the pools. */
function peakWords(l: LineArithmetic): string {
  if (l.burst === 0) return "No burst limits: nothing can be borrowed beyond the guarantees.";
  const start = `With every burst limit used, ${lineAmount(l, l.peak)} could be asked for`;
  return `${start}: ${fitWords(l.peakFit, l)}.`;
}

function fitWords(fit: Fit, l: LineArithmetic): string {
  const f = (n: number) => lineFigure(l, n);
  if (fit.kind === "fits") return `the ${f(l.capacity.now)} present hold that, so borrowing alone makes the autoscaler add nothing`;
  if (fit.kind === "grows") {
    const growth = fit.pools.map((g) => `${g.pool} to ${g.to} nodes (max ${g.max})`).join(", ");
    return `borrowing alone could make the autoscaler grow ${growth}, ${f(l.growthFromBorrowing)} more within the maximum`;
  }
  return `more than even the autoscaler maximum (${f(l.capacity.atMax)}) holds, so borrowing stops there (${f(l.growthFromBorrowing)} more than present at most)`;
}

/** The capacity page's sentence for a GPU line. */
export function lineSentence(l: LineArithmetic): string {
  const held =
    l.guaranteed <= l.capacity.atMin
      ? `${l.guaranteed} of the ${l.capacity.atMin} the pools keep at their autoscaler minimum are guaranteed; ${l.headroomAtMin} left to guarantee.`
      : `${l.guaranteed} are guaranteed, ${-l.headroomAtMin} more than the ${l.capacity.atMin} the pools keep at their autoscaler minimum: if the autoscaler shrinks them, not every guarantee can be met.`;
  return `${l.flavor}: ${held} ${peakWords(l)}`;
}

/** The queue's sentence for a line a request touches: whether the pools hold the guarantees after approval, and what bursts could reach. */
export function approvalSentence(a: ApprovalArithmetic): string {
  const { before: b, after: n } = a;
  const f = (x: number) => lineFigure(n, x);
  const compute = isComputeLine(n);
  const guaranteed = `${lineAmount(n, n.guaranteed)} ${compute ? "granted" : "guaranteed"} across all tenants after approval (${f(b.guaranteed)} now${compute ? ", starting quotas aside" : ""})`;
  const sizes = `at their minimum (${f(n.capacity.atMin)}), now (${f(n.capacity.now)}) and at their maximum (${f(n.capacity.atMax)})`;
  let holds: string;
  if (a.breaksMinimum) holds = `more than the pools keep at their autoscaler minimum (${f(n.capacity.atMin)}): approving as asked is refused, ${f(Math.max(0, b.headroomAtMin))} more can be guaranteed`;
  else if (n.guaranteed <= n.capacity.atMin) holds = `the pools hold them ${sizes}`;
  else if (compute) holds = `more than the pools keep at their minimum (${f(n.capacity.atMin)}); the capacity table says whether the nodes present hold it`;
  else holds = `already more than the pools keep at their minimum (${f(n.capacity.atMin)}); this approval adds no guarantee`;
  const burst = n.burst === b.burst ? "" : ` Burst limits go from ${f(b.burst)} to ${f(n.burst)}.`;
  return `${lineName(n)}: ${guaranteed}: ${holds}.${burst} ${peakWords(n)}`;
}
