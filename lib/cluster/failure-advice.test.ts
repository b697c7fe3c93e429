import { describe, expect, it } from "vitest";
import { failureAdvice } from "./failure-advice";

const failed = (lastErrorReason: string | null, lastError = "the API server's message") => ({ status: "failed" as const, lastError, lastErrorReason });
const pending = (lastErrorReason: string | null) => ({ status: "pending" as const, lastError: "the API server's message", lastErrorReason });

/** Every reason the worker records (worker.ts failureOutcome, kube-client.ts toClusterApiError) that has advice of its own. */
const KNOWN = [
  "Forbidden",
  "http_403",
  "Unauthorized",
  "http_401",
  "UnknownKind",
  "Invalid",
  "BadRequest",
  "http_422",
  "InvalidObject",
  "NotFound",
  "Conflict",
  "TooManyRequests",
  "http_429",
  "ConnectionRefused",
  "ConnectionReset",
  "NetworkError",
  "Timeout",
  "TLSError",
  "FlavorsNotReady",
  "FlavorInUse",
  "InternalError",
  "http_500",
  "http_503",
];

describe("failureAdvice", () => {
  it("says nothing of a change that applied, was recorded, was superseded or has no error", () => {
    expect(failureAdvice({ status: "applied", lastError: null, lastErrorReason: null })).toBeNull();
    expect(failureAdvice({ status: "recorded", lastError: null, lastErrorReason: null })).toBeNull();
    expect(failureAdvice({ status: "superseded", lastError: "x", lastErrorReason: "Forbidden" })).toBeNull();
    expect(failureAdvice({ status: "pending", lastError: null, lastErrorReason: null })).toBeNull();
  });

  it("gives each known reason advice of its own, not the generic sentence, as whole sentences", () => {
    const generic = failureAdvice(failed("SomethingNew"))!.text;
    for (const reason of KNOWN) {
      const advice = failureAdvice(failed(reason))!;
      expect(advice.text, reason).not.toBe(generic);
      expect(advice.text, reason).toMatch(/^[A-Z].*\.$/);
      expect(advice.retriesByItself, reason).toBe(false);
    }
  });

  it("sends a failed change to Retry once its cause is fixed, and names where to fix it", () => {
    expect(failureAdvice(failed("Forbidden"))!.text).toContain("deploy/base/clusterrole.yaml");
    expect(failureAdvice(failed("Forbidden"))!.text).toMatch(/then press Retry on the change\.$/);
    expect(failureAdvice(failed("UnknownKind"))!.text).toContain("ALLOT_KUEUE_API_VERSION");
    expect(failureAdvice(failed("TLSError"))!.text).toContain("CA");
    // A transient cause that failed means the worker gave up.
    expect(failureAdvice(failed("ConnectionRefused"))!.text).toContain("gave up after ALLOT_CLUSTER_MAX_ATTEMPTS attempts");
    expect(failureAdvice(failed("http_403"))!.text).toBe(failureAdvice(failed("Forbidden"))!.text);
    // A fault of the portal's rendering is not fixed by retrying.
    expect(failureAdvice(failed("InvalidObject"))!.text).toMatch(/report it to the portal's maintainers with the change's YAML\.$/);
    expect(failureAdvice(failed("Conflict"))!.text).toMatch(/ Press Retry on the change\.$/);
  });

  it("tells that a pending change tries again by itself, and when there is nothing to do", () => {
    const waiting = failureAdvice(pending("FlavorsNotReady"))!;
    expect(waiting.retriesByItself).toBe(true);
    expect(waiting.text).toMatch(/tries again by itself, with backoff\. Nothing to do\.$/);
    expect(failureAdvice(pending("ConnectionRefused"))!.text).toContain("if it lasts, check the API server's address");
    // A cause that will not pass by waiting says so even while the worker retries.
    expect(failureAdvice(pending("Forbidden"))!.text).toContain("does not pass on its own");
    expect(failureAdvice(pending("Forbidden"))!.text).not.toContain("press Retry");
  });

  it("falls back to reading the message for a reason it does not know, or none (changes from before the reason was kept)", () => {
    expect(failureAdvice(failed(null))!.what).toBeNull();
    expect(failureAdvice(failed("Forbidden"))!.text.startsWith(failureAdvice(failed("Forbidden"))!.what!)).toBe(true);
    expect(failureAdvice(failed(null))!.text).toBe("Fix what the API server's message names, on the cluster or in the portal's settings, then press Retry on the change.");
    expect(failureAdvice(pending("SomethingNew"))!.text).toMatch(/^The worker tries again by itself/);
  });
});
