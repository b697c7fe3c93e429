/**
 * Faults the stand-in API server injects into the next matching requests.
 *
 *   faults.push({ status: 500 })                          next request: 500 InternalError
 *   faults.push({ status: 429, retryAfterSeconds: 1 })    429 with Retry-After: 1
 *   faults.push({ status: 409 })                          409 Conflict
 *   faults.push({ delayMs: 2000 })                        answered (normally) 2 s late
 *   faults.push({ delayMs: 2000, status: 503 })           503 after 2 s
 *   faults.push({ refuse: true })                         socket destroyed, no response (ECONNRESET)
 *   faults.push({ match: { method: "PATCH", kind: "RoleBinding" }, status: 500, times: 3 })
 *
 * Discovery requests (GET /api, /apis, /api/v1, /apis/<group>/<version>) are
 * left alone unless a fault asks for them with `match: { discovery: true }`:
 * client-node discovers once per apiVersion and client, so "the next request"
 * would otherwise depend on what the client happened to have cached.
 */

export interface FaultMatch {
  /** HTTP method, case-insensitive. */
  method?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  /** Matched against the path without the query. */
  path?: string | RegExp;
  /** true: only discovery requests; default: only resource requests. */
  discovery?: boolean;
}

export interface Fault {
  match?: FaultMatch;
  /** Answer with this status and a Kubernetes Status body instead of handling the request. */
  status?: number;
  /** Status.reason; defaults to the one the real server uses for `status`. */
  reason?: string;
  /** Status.message; defaults to a text naming the injected fault. */
  message?: string;
  /** Sets the Retry-After header and Status.details.retryAfterSeconds. */
  retryAfterSeconds?: number;
  /** Wait this long first; then answer with `status`, refuse, or handle the request normally. */
  delayMs?: number;
  /** Destroy the connection without answering (a reset socket). */
  refuse?: boolean;
  /** How many matching requests this fault applies to; default 1. */
  times?: number;
}

/** What a fault is matched against. */
export interface RequestFacts {
  method: string;
  path: string;
  discovery: boolean;
  kind?: string;
  namespace?: string;
  name?: string;
}

function matches(match: FaultMatch | undefined, facts: RequestFacts): boolean {
  if (facts.discovery !== (match?.discovery ?? false)) return false;
  if (!match) return true;
  if (match.method !== undefined && match.method.toUpperCase() !== facts.method) return false;
  if (match.kind !== undefined && match.kind !== facts.kind) return false;
  if (match.namespace !== undefined && match.namespace !== facts.namespace) return false;
  if (match.name !== undefined && match.name !== facts.name) return false;
  if (typeof match.path === "string" && match.path !== facts.path) return false;
  if (match.path instanceof RegExp && !match.path.test(facts.path)) return false;
  return true;
}

export class FaultQueue {
  private queue: { fault: Fault; left: number }[] = [];

  /** Queue faults; each applies to the next `times` (default 1) requests it matches, in queue order. */
  push(...faults: Fault[]): void {
    for (const fault of faults) this.queue.push({ fault, left: fault.times ?? 1 });
  }

  clear(): void {
    this.queue = [];
  }

  /** How many faults still wait for a request. */
  get pending(): number {
    return this.queue.length;
  }

  /** The fault for this request, if any, used up by one. */
  take(facts: RequestFacts): Fault | undefined {
    const index = this.queue.findIndex((q) => matches(q.fault.match, facts));
    if (index < 0) return undefined;
    const entry = this.queue[index]!;
    entry.left -= 1;
    if (entry.left <= 0) this.queue.splice(index, 1);
    return entry.fault;
  }
}
