import type { ChangeStatus } from "./queries";

/**
 * What to do about a change that did not apply, from the reason its last
 * attempt recorded (cluster_changes.last_error_reason): the API's Status
 * reason, ours (Timeout, ConnectionRefused, FlavorsNotReady, ...),
 * InvalidObject or http_<code>. The API server's own message is shown beside
 * it; this says who acts and how, so a platform admin reading a failed change
 * knows whether to wait, fix the cluster, fix a setting or report a bug.
 * A pending change tries again by itself; a failed one waits for "Retry".
 */
export interface FailureAdvice {
  /** Two or three sentences: what happened, and what to do. */
  text: string;
  /** What happened alone, for readers who cannot act on the cluster (a project's page); null for a reason without advice. */
  what: string | null;
  /** The change tries again by itself (pending, with backoff). */
  retriesByItself: boolean;
}

interface Cause {
  /** What happened, as a sentence. */
  what: string;
  /** What a person does about it, as a clause that reads after "if it lasts," or on its own; null: nothing. */
  fix: string | null;
  /** Trying again can succeed without anyone acting (the worker does, with backoff). */
  transient: boolean;
  /** Retry renders the same thing and fails the same way: the fix is not the platform admin's. */
  retryUseless?: true;
}

const UNREACHABLE: Cause = {
  what: "The API server could not be reached or did not answer in time.",
  fix: "check the API server's address in the kubeconfig, the egress network policy of the portal's namespace and the API server's health",
  transient: true,
};
const SERVER_FAILED: Cause = { what: "The API server failed while answering.", fix: "check the API server and its etcd", transient: true };

const CAUSES: Record<string, Cause> = {
  Forbidden: {
    what: "The API server refused the portal's service account, or an admission policy (a webhook, Gatekeeper, Kyverno) denied the object: the message says which.",
    fix: "for a missing permission, apply deploy/base/clusterrole.yaml (and deploy/components/kueue with Kueue on) from the portal's release; for a policy, change the policy or the setting the object follows",
    transient: false,
  },
  Unauthorized: {
    what: "The API server did not accept the portal's credentials: the service account token or the kubeconfig's user has expired or was rotated.",
    fix: "restart the portal with valid credentials",
    transient: false,
  },
  UnknownKind: {
    what: "The cluster does not serve this kind at this API version.",
    fix: "with Kueue on (ALLOT_KUEUE=1), install Kueue or set ALLOT_KUEUE_API_VERSION to the version the cluster serves (kubectl api-versions | grep kueue), or turn Kueue off",
    transient: false,
  },
  Invalid: {
    what: "The API server rejected an object as invalid. The portal checks every object against the Kubernetes and Kueue schemas first, so the cluster's version or a validating webhook differs from them.",
    fix: "compare the change's YAML with the message and fix the setting it names (a node pool's labels, a quota amount)",
    transient: false,
  },
  InvalidObject: {
    what: "A fault in the portal: it rendered an object that fails validation, so nothing was sent.",
    fix: "retrying renders the same object and fails again; report it to the portal's maintainers with the change's YAML",
    transient: false,
    retryUseless: true,
  },
  NotFound: {
    what: "Something the object needs is not on the cluster (a namespace deleted by hand, a CRD removed).",
    fix: "put back what was removed outside the portal (the portal never recreates a deleted namespace's workloads)",
    transient: false,
  },
  Conflict: { what: "Another writer changed the same fields at the same moment; applying again settles it.", fix: null, transient: true },
  TooManyRequests: { what: "The API server asked the portal to slow down (API priority and fairness).", fix: "raise the portal's priority level or lower its worker's concurrency", transient: true },
  TLSError: {
    what: "The API server's certificate was not trusted, or the portal's client certificate was refused.",
    fix: "give the portal the cluster's CA (the kubeconfig's certificate-authority-data, or the service account's ca.crt) and restart it",
    transient: false,
  },
  FlavorsNotReady: { what: "This tenant's queues wait for the platform's ResourceFlavors, which are queued ahead of them and tried first.", fix: null, transient: true },
  FlavorInUse: {
    what: "A ResourceFlavor is not deleted while a ClusterQueue still names it.",
    fix: "look for a failing change of the tenant whose queue still names it",
    transient: true,
  },
  ConnectionRefused: UNREACHABLE,
  ConnectionReset: UNREACHABLE,
  NetworkError: UNREACHABLE,
  Timeout: UNREACHABLE,
  ServerTimeout: UNREACHABLE,
  InternalError: SERVER_FAILED,
  ServiceUnavailable: SERVER_FAILED,
};
const ALIASES: Record<string, string> = { http_400: "Invalid", BadRequest: "Invalid", http_422: "Invalid", http_401: "Unauthorized", http_403: "Forbidden", http_404: "NotFound", http_409: "Conflict", http_429: "TooManyRequests" };

function causeOf(reason: string): Cause | null {
  const known = CAUSES[ALIASES[reason] ?? reason];
  if (known) return known;
  return /^http_5\d\d$/.test(reason) ? SERVER_FAILED : null;
}

const capitalised = (clause: string) => clause.charAt(0).toUpperCase() + clause.slice(1);

/**
 * What to do about a change in this state with this last reason; null when
 * there is nothing to do: it applied or was recorded, it has no error, or it
 * was superseded (a newer change of the target renders the same or newer state).
 */
export function failureAdvice(change: { status: ChangeStatus; lastError: string | null; lastErrorReason: string | null }): FailureAdvice | null {
  if (change.lastError === null || change.status === "applied" || change.status === "recorded" || change.status === "superseded") return null;
  const retriesByItself = change.status === "pending" || change.status === "applying";
  const cause = change.lastErrorReason ? causeOf(change.lastErrorReason) : null;
  if (!cause) {
    return retriesByItself
      ? { text: "The worker tries again by itself, with backoff. If the same message comes back, fix what it names on the cluster or in the portal's settings.", what: null, retriesByItself }
      : { text: "Fix what the API server's message names, on the cluster or in the portal's settings, then press Retry on the change.", what: null, retriesByItself };
  }
  if (retriesByItself) {
    const wait = cause.transient ? "The worker tries again by itself, with backoff" : "The worker tries again by itself, but this does not pass on its own";
    return { text: `${cause.what} ${wait}${cause.fix ? `; ${cause.transient ? "if it lasts, " : ""}${cause.fix}.` : ". Nothing to do."}`, what: cause.what, retriesByItself };
  }
  const gaveUp = cause.transient ? " The worker gave up after ALLOT_CLUSTER_MAX_ATTEMPTS attempts." : "";
  const fix = cause.fix ? capitalised(cause.fix) : "";
  const then = cause.retryUseless ? "." : cause.fix ? ", then press Retry on the change." : "Press Retry on the change.";
  return { text: `${cause.what}${gaveUp} ${fix}${then}`, what: cause.what, retriesByItself };
}
