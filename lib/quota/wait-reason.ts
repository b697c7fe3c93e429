/**
 * Why a workload waits, in words a data scientist reads: Kueue's messages
 * (its scheduler's QuotaReserved=False message, and the Evicted or Preempted
 * message of a workload put back) turned into one plain sentence. The raw
 * message stays available beside it; a message no pattern knows gets a
 * sentence that says so. Pure.
 *
 * The patterns are Kueue's own format strings (pkg/scheduler/flavorassigner,
 * pkg/scheduler/preemption, pkg/workload), as Kueue 0.9 to 0.14 write them.
 */

export interface WaitReasonWords {
  /** The plain sentence. */
  sentence: string;
  /** False when no known pattern matched: the sentence only says Kueue has not admitted it. */
  known: boolean;
}

export interface WaitReasonContext {
  /** A ResourceFlavor's object name as people know it ("vision-lab-h100" -> "H100"); absent: the name as is. */
  flavorLabel?: (flavorName: string) => string;
}

/** A resource as people say it: "GPUs", "1g.10gb MIG slices", "CPU", "memory". */
export function resourceWords(resource: string): string {
  if (resource === "nvidia.com/gpu") return "GPUs";
  if (resource === "nvidia.com/gpu.shared") return "GPU slices";
  const mig = /^nvidia\.com\/mig-(.+)$/.exec(resource);
  if (mig) return `${mig[1]} MIG slices`;
  if (resource === "cpu") return "CPU";
  if (resource === "memory") return "memory";
  return resource;
}

type Match = RegExpMatchArray;
interface Pattern {
  /** Matched anywhere in the message (global patterns may match several times, one clause each). */
  regex: RegExp;
  words: (matches: Match[], flavor: (name: string) => string) => string;
}

const list = (parts: string[]) => (parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`);
const unique = (parts: string[]) => [...new Set(parts)];

/** Most specific first: a message is explained by the first pattern that matches it. */
const PATTERNS: Pattern[] = [
  {
    regex: /insufficient quota for (\S+) in flavor (\S+), (?:request > maximum capacity \((\S+) > (\S+)\)|.*?> maximum capacity \((\S+)\))/g,
    words: (ms, flavor) => {
      const parts = ms.map((m) => `${resourceWords(m[1]!)} of ${flavor(m[2]!)}${m[3] ? ` (${m[3]} asked, ${m[4]} at most)` : m[5] ? ` (at most ${m[5]})` : ""}`);
      return `It asks for more ${list(unique(parts))} than its queue can ever hold, so it will not start as submitted: ask for less, or request more quota for the project.`;
    },
  },
  {
    regex: /resource (\S+) unavailable in ClusterQueue/g,
    words: (ms) => {
      const resources = list(unique(ms.map((m) => resourceWords(m[1]!))));
      return `The project's queue holds no quota for ${resources}, so it cannot start: ask for a resource the project holds, or request quota for ${resources}.`;
    },
  },
  {
    regex: /borrowing limit for (\S+) in flavor (\S+) exceeded/g,
    words: (ms, flavor) =>
      `Starting it would borrow more ${list(unique(ms.map((m) => `${resourceWords(m[1]!)} of ${flavor(m[2]!)}`)))} than the project's burst limit allows: it waits until the project's other borrowed work finishes (or the burst limit is raised).`,
  },
  {
    regex: /insufficient unused quota (?:in cohort )?for (\S+) in flavor (\S+), (\S+) more needed/g,
    words: (ms, flavor) =>
      `It waits for ${list(unique(ms.map((m) => `${m[3]} more ${resourceWords(m[1]!)} of ${flavor(m[2]!)}`)))} to come free: what the project holds is in use and nothing idle can be borrowed right now. It starts when running work finishes or idle quota appears.`,
  },
  {
    regex: /(?:flavor \S+ doesn't match node affinity|untolerated taint .*? in flavor \S+)/g,
    words: () => "Its node selector, affinity or tolerations match none of the nodes its queue's flavours run on: change them, or it will not start.",
  },
  {
    regex: /Workload namespace doesn't match ClusterQueue selector/g,
    words: () => "The queue it was submitted to does not admit workloads from this project's namespace: submit it to the project's own queue (default or preemptible).",
  },
  {
    regex: /LocalQueue (\S+) doesn't exist/g,
    words: (ms) => `It names a queue, ${ms[0]![1]}, that does not exist in the project's namespace: submit it to default (the guarantee) or preemptible (burst).`,
  },
  {
    regex: /ClusterQueue (\S+) (?:doesn't exist|is inactive)/g,
    words: () => "The project's queue is not ready on the cluster yet (its settings have not been applied, or it names something missing): the platform team sees this on the cluster page.",
  },
  {
    regex: /Preempted to accommodate a workload .*? due to reclamation within the cohort/g,
    words: () => "It ran on borrowed quota and was preempted when the project that lent it took its quota back; it waits to run again.",
  },
  {
    regex: /Preempted to accommodate a workload .*? due to Fair Sharing within the cohort/g,
    words: () => "It was preempted so another project could have its fair share of the cohort; it waits to run again.",
  },
  {
    regex: /Preempted to accommodate a workload .*? due to prioritization in the ClusterQueue/g,
    words: () => "It was preempted by higher-priority work of the project; it waits to run again.",
  },
  {
    regex: /Pending the preemption of (\d+) workload/g,
    words: (ms) => `Quota is being freed for it: ${ms[0]![1]} lower-priority or borrowed workload${ms[0]![1] === "1" ? " is" : "s are"} being preempted.`,
  },
  {
    regex: /Workload no longer fits after processing another workload/g,
    words: () => "It waits its turn: a workload ahead of it took the quota that was free.",
  },
  {
    regex: /Exceeded the PodsReady timeout/g,
    words: () => "Its pods did not all start in time, so Kueue put it back in the queue.",
  },
  {
    regex: /The workload is deactivated/g,
    words: () => "It is deactivated (stopped by its owner, or after too many retries): it will not start until it is reactivated.",
  },
  {
    regex: /failed admission checks?/g,
    words: () => "An admission check refused it; the message below says which.",
  },
];

export const UNKNOWN_WAIT_REASON = "Kueue has not admitted it yet; its own message is below.";

/** The plain sentence for a Kueue message (null or empty: nothing to explain). */
export function explainWaitReason(raw: string | null, context: WaitReasonContext = {}): WaitReasonWords | null {
  if (raw === null || raw.trim() === "") return null;
  const flavor = context.flavorLabel ?? ((name: string) => name);
  for (const p of PATTERNS) {
    const matches = [...raw.matchAll(p.regex)];
    if (matches.length > 0) return { sentence: p.words(matches, flavor), known: true };
  }
  return { sentence: UNKNOWN_WAIT_REASON, known: false };
}
