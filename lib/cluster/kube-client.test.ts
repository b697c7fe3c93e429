import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ApiException, FetchError } from "@kubernetes/client-node";
import { afterAll, describe, expect, it } from "vitest";
import { ClusterApiError, clusterConnection, kubeConfigFor, toClusterApiError } from "./kube-client";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allot-kube-client-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function kubeconfigFile(name: string, server: string, context = "main"): string {
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    [
      "apiVersion: v1",
      "kind: Config",
      `current-context: ${context}`,
      "clusters:",
      `- name: ${context}`,
      "  cluster:",
      `    server: ${server}`,
      "contexts:",
      `- name: ${context}`,
      "  context:",
      `    cluster: ${context}`,
      `    user: ${context}`,
      "users:",
      `- name: ${context}`,
      "  user:",
      "    token: secret",
      "",
    ].join("\n"),
  );
  return file;
}

function serviceAccountDir(withToken: boolean): string {
  const sa = fs.mkdtempSync(path.join(dir, "sa-"));
  if (withToken) fs.writeFileSync(path.join(sa, "token"), "token");
  fs.writeFileSync(path.join(sa, "namespace"), "allot-system\n");
  return sa;
}

describe("clusterConnection", () => {
  const live = (c: ReturnType<typeof clusterConnection>) => {
    if (c.mode !== "live") throw new Error(`expected live, got ${c.mode}`);
    return c;
  };

  it("is record-only when nothing says where a cluster is", () => {
    expect(clusterConnection({}, serviceAccountDir(true))).toEqual({ mode: "record-only" });
  });

  it("uses the current context of KUBECONFIG", () => {
    const c = live(clusterConnection({ KUBECONFIG: kubeconfigFile("one.yaml", "https://api.example:6443") }));
    expect(c.server).toBe("https://api.example:6443");
    expect(c.kubeConfig.getCurrentUser()?.token).toBe("secret");
  });

  it("merges a KUBECONFIG list as kubectl does, the first file's context winning", () => {
    const first = kubeconfigFile("first.yaml", "https://first.example", "first");
    const second = kubeconfigFile("second.yaml", "https://second.example", "second");
    const c = live(clusterConnection({ KUBECONFIG: [first, second].join(path.delimiter) }));
    expect(c.server).toBe("https://first.example");
    expect(c.kubeConfig.getContexts().map((x) => x.name).sort()).toEqual(["first", "second"]);
  });

  it("says which KUBECONFIG file it cannot load", () => {
    expect(() => clusterConnection({ KUBECONFIG: path.join(dir, "missing.yaml") })).toThrow(/KUBECONFIG: cannot load .*missing\.yaml/);
  });

  it("uses the pod's service account inside a cluster", () => {
    const c = live(clusterConnection({ KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" }, serviceAccountDir(true)));
    expect(c.server).toBe("https://10.96.0.1:443");
    expect(c.kubeConfig.getCurrentUser()?.authProvider).toMatchObject({ name: "tokenFile" });
    expect(c.kubeConfig.getContextObject(c.kubeConfig.getCurrentContext())?.namespace).toBe("allot-system");
    expect(live(clusterConnection({ KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" }, serviceAccountDir(true))).server).toBe("https://[fd00::1]:443");
  });

  it("is record-only in a pod without a service account token", () => {
    expect(clusterConnection({ KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" }, serviceAccountDir(false))).toEqual({ mode: "record-only" });
  });

  it("prefers KUBECONFIG to the in-cluster account", () => {
    const env = { KUBECONFIG: kubeconfigFile("pref.yaml", "https://chosen.example"), KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };
    expect(live(clusterConnection(env, serviceAccountDir(true))).server).toBe("https://chosen.example");
  });

  it("is record-only when ALLOT_CLUSTER_MODE says so, whatever else is set", () => {
    const env = { ALLOT_CLUSTER_MODE: "record-only", KUBECONFIG: kubeconfigFile("forced.yaml", "https://x.example"), KUBERNETES_SERVICE_HOST: "10.96.0.1" };
    expect(clusterConnection(env, serviceAccountDir(true))).toEqual({ mode: "record-only" });
    expect(clusterConnection({ ...env, ALLOT_CLUSTER_MODE: "auto" }, serviceAccountDir(true)).mode).toBe("live");
  });
});

describe("kubeConfigFor", () => {
  it("points at the URL, without credentials", () => {
    const kc = kubeConfigFor("http://127.0.0.1:1234");
    expect(kc.getCurrentCluster()?.server).toBe("http://127.0.0.1:1234");
    expect(kc.getCurrentUser()).toMatchObject({ name: "anonymous" });
    expect(kc.getCurrentUser()?.token).toBeUndefined();
  });
});

describe("toClusterApiError", () => {
  const status = (code: number, reason: string, message: string, extra: object = {}) => JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message, ...extra });

  it("passes a ClusterApiError through", () => {
    const e = new ClusterApiError("x", { retryable: true });
    expect(toClusterApiError(e)).toBe(e);
  });

  it("takes status, reason and message from the API's Status", () => {
    const e = toClusterApiError(new ApiException(422, "Unsuccessful HTTP Request", status(422, "Invalid", 'ResourceQuota "q" is invalid'), {}));
    expect(e).toMatchObject({ status: 422, reason: "Invalid", message: 'ResourceQuota "q" is invalid', retryable: false, conflict: false });
    expect(e.cause).toBeInstanceOf(ApiException);
  });

  it("recognises an ApiException of another copy of client-node by its shape", () => {
    const foreign = Object.assign(new Error("HTTP-Code: 503"), { code: 503, body: status(503, "ServiceUnavailable", "busy"), headers: {} });
    expect(toClusterApiError(foreign)).toMatchObject({ status: 503, retryable: true, message: "busy" });
  });

  it("describes a status without a Status body (a proxy's HTML page)", () => {
    const e = toClusterApiError(new ApiException(502, "Unsuccessful HTTP Request", "<html>bad gateway</html>", {}), { server: "https://api.example" });
    expect(e).toMatchObject({ status: 502, retryable: true, message: "HTTP 502 Bad Gateway from https://api.example" });
  });

  it("reads Retry-After as seconds, as an HTTP date, or from Status details", () => {
    const seconds = toClusterApiError(new ApiException(429, "", status(429, "TooManyRequests", "slow down"), { "retry-after": "3" }));
    expect(seconds.retryAfterMs).toBe(3_000);
    const date = toClusterApiError(new ApiException(503, "", "", { "Retry-After": new Date(Date.now() + 10_000).toUTCString() }));
    expect(date.retryAfterMs).toBeGreaterThan(8_000);
    expect(date.retryAfterMs).toBeLessThanOrEqual(10_000);
    const details = toClusterApiError(new ApiException(504, "", status(504, "Timeout", "try later", { details: { retryAfterSeconds: 7 } }), {}));
    expect(details).toMatchObject({ retryable: true, retryAfterMs: 7_000 });
    // A refusal that cannot succeed says nothing about when to retry.
    expect(toClusterApiError(new ApiException(403, "", status(403, "Forbidden", "no"), { "retry-after": "3" })).retryAfterMs).toBeUndefined();
  });

  it.each([
    [408, true, false],
    [409, true, true],
    [429, true, false],
    [500, true, false],
    [504, true, false],
    [400, false, false],
    [401, false, false],
    [403, false, false],
    [404, false, false],
    [422, false, false],
  ])("HTTP %i: retryable %s, conflict %s", (code, retryable, conflict) => {
    expect(toClusterApiError(new ApiException(code, "", "", {}))).toMatchObject({ status: code, retryable, conflict });
  });

  it("classifies node-fetch's network errors", () => {
    const refused = new FetchError("request to https://api.example/api/v1 failed, reason: connect ECONNREFUSED 10.0.0.1:443", "system", { code: "ECONNREFUSED" } as NodeJS.ErrnoException);
    expect(toClusterApiError(refused)).toMatchObject({ reason: "ConnectionRefused", retryable: true, message: "connection refused to https://api.example/api/v1" });
    const reset = new FetchError("request to https://api.example/api/v1 failed, reason: socket hang up", "system", { code: "ECONNRESET" } as NodeJS.ErrnoException);
    expect(toClusterApiError(reset)).toMatchObject({ reason: "ConnectionReset", retryable: true });
    const dns = new FetchError("request to https://api.example/api/v1 failed, reason: getaddrinfo ENOTFOUND api.example", "system", { code: "ENOTFOUND" } as NodeJS.ErrnoException);
    expect(toClusterApiError(dns)).toMatchObject({ reason: "NetworkError", retryable: true });
  });

  it("classifies undici's fetch failures by their cause", () => {
    const refused = new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }) });
    expect(toClusterApiError(refused, { server: "http://127.0.0.1:1" })).toMatchObject({ reason: "ConnectionRefused", retryable: true, message: "connection refused to http://127.0.0.1:1" });
    const closed = new TypeError("fetch failed", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) });
    expect(toClusterApiError(closed)).toMatchObject({ reason: "ConnectionReset", retryable: true });
    expect(toClusterApiError(new TypeError("fetch failed"))).toMatchObject({ reason: "NetworkError", retryable: true });
  });

  it("does not retry a TLS failure", () => {
    const tls = new FetchError("request to https://api.example/ failed, reason: certificate has expired", "system", { code: "CERT_HAS_EXPIRED" } as NodeJS.ErrnoException);
    expect(toClusterApiError(tls)).toMatchObject({ reason: "TLSError", retryable: false });
    const selfSigned = Object.assign(new Error("self-signed certificate"), { code: "DEPTH_ZERO_SELF_SIGNED_CERT" });
    expect(toClusterApiError(selfSigned)).toMatchObject({ reason: "TLSError", retryable: false });
  });

  it("names a kind the cluster does not serve", () => {
    const discovery = new ApiException(404, "", status(404, "NotFound", "the server could not find the requested resource"), {});
    discovery.message = `Failed to fetch resource metadata for kueue.x-k8s.io/v1beta2/ClusterQueue: ${discovery.message}`;
    expect(toClusterApiError(discovery)).toMatchObject({ status: 404, reason: "UnknownKind", retryable: false, message: expect.stringContaining("kueue.x-k8s.io/v1beta2/ClusterQueue") as unknown });
    expect(toClusterApiError(new Error("Unrecognized API version and kind: v1 Pod"))).toMatchObject({ status: 404, reason: "UnknownKind", retryable: false, message: "the cluster does not serve v1/Pod" });
  });

  it("does not retry anything it does not recognise", () => {
    expect(toClusterApiError(new Error("Required spec property name is not set"))).toMatchObject({ retryable: false, conflict: false, message: "Required spec property name is not set", status: undefined });
    expect(toClusterApiError("a string")).toMatchObject({ retryable: false, message: "a string" });
  });
});
