import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import http, { STATUS_CODES } from "node:http";
import https from "node:https";
import net from "node:net";
import path from "node:path";
import {
  ApiException,
  createConfiguration,
  HttpMethod,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  RequestContext,
  ResponseContext,
  ServerConfiguration,
  type KubernetesObject,
  type Middleware,
} from "@kubernetes/client-node";
import { inSpan } from "@/lib/observability/tracing";

/**
 * The portal's one door to a cluster: server-side apply, read, list and
 * delete of the objects lib/cluster renders, each call bounded by a timeout,
 * and every failure turned into a ClusterApiError that says whether trying
 * again can help. Retrying is the caller's business (the reconcile worker).
 */

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/**
 * An object as the API server sent it: plain JSON, timestamps as strings.
 * (client-node's typed models would turn LimitRange `default` into `_default`
 * and timestamps into Dates; comparing those with rendered objects misleads.)
 */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

export interface ClusterClient {
  /** API server URL, for display. */
  readonly server: string;
  /** The field manager its applies use; pruning leaves objects whose fields only other managers hold. */
  readonly fieldManager?: string;
  /** Server-side apply with the client's field manager, forcing ownership. Sends the object's JSON as is; returns it as stored. */
  apply(object: KubernetesObject): Promise<KubeObject>;
  /** null when the object does not exist. */
  read(ref: ObjectRef): Promise<KubeObject | null>;
  /** Every object of a kind in a namespace (or cluster-wide) matching the selector, all pages. Items carry apiVersion and kind. */
  list(apiVersion: string, kind: string, options: { namespace?: string; labelSelector: string }): Promise<KubeObject[]>;
  /** "absent" when there was nothing to delete. A Namespace is "deleted" once its deletion is accepted. */
  remove(ref: ObjectRef): Promise<"deleted" | "absent">;
  /**
   * A GET of any API path answered with JSON (discovery documents, status
   * subresources, aggregated APIs such as Kueue's visibility API). `what`
   * names it in spans and errors ("Kueue discovery").
   */
  getJson(path: string, what: string): Promise<unknown>;
}

export interface ClusterClientOptions {
  /** Field manager for server-side apply; default "allot". */
  fieldManager?: string;
  /** Per call (discovery included); default 10 s. */
  timeoutMs?: number;
  /** Items per list request; default 500. */
  pageSize?: number;
}

/** `reason` of a ClusterApiError for a kind the cluster does not serve (its CRD is not installed, or not at that version). */
export const UNKNOWN_KIND = "UnknownKind";

export class ClusterApiError extends Error {
  override readonly name = "ClusterApiError";
  /** The HTTP status, when the API server answered. */
  readonly status?: number;
  /** The API's Status.reason (NotFound, Conflict, ...), or ours: Timeout, ConnectionRefused, ConnectionReset, NetworkError, TLSError, UnknownKind. */
  readonly reason?: string;
  /** Trying again later may succeed: 5xx, 429, 408, 409, timeouts, network failures. */
  readonly retryable: boolean;
  /** 409: another writer got there first; read or apply again. */
  readonly conflict: boolean;
  /** How long the server asked us to wait (Retry-After). */
  readonly retryAfterMs?: number;

  constructor(message: string, init: { status?: number; reason?: string; retryable: boolean; conflict?: boolean; retryAfterMs?: number; cause?: unknown }) {
    super(message, { cause: init.cause });
    this.status = init.status;
    this.reason = init.reason;
    this.retryable = init.retryable;
    this.conflict = init.conflict ?? false;
    this.retryAfterMs = init.retryAfterMs;
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_PAGE_SIZE = 500;
const DISCOVERY_KINDS = new Set(["APIResourceList", "APIVersions", "APIGroupList", "APIGroup"]);

/** What one call carries through client-node's promise chain (via AsyncLocalStorage). */
interface CallContext {
  signal: AbortSignal;
  /** The JSON of the call's last successful response that was not a discovery document. */
  raw?: unknown;
}

/** Connections kept open per client for reuse; more requests at once than this wait for a free one. */
const KEEP_ALIVE_SOCKETS = 32;
const TLS_OPTIONS = ["ca", "cert", "key", "pfx", "passphrase", "rejectUnauthorized", "servername"] as const;
const optionText = (v: unknown): string =>
  Buffer.isBuffer(v) ? v.toString("base64") : Array.isArray(v) ? v.map(optionText).join("|") : typeof v === "string" || typeof v === "boolean" || typeof v === "number" ? String(v) : "";

/**
 * client-node builds a new http(s).Agent for every request (KubeConfig
 * applySecurityAuthentication), without keep-alive: a TCP connection, and
 * over TLS a handshake, per request. This hands each request one shared
 * keep-alive agent instead, built with the same TLS options (CA, client
 * certificate, server name, verification) as the one client-node made; when
 * those change (a rotated CA or certificate file) the next request gets a
 * fresh agent and the old one's connections are closed. Proxy agents (a
 * kubeconfig proxy-url) are left as they are. Idle sockets are unref'd by
 * Node, so they never hold a process open.
 */
export function keepAliveAgents(): (agent: unknown) => unknown {
  let current: { key: string; agent: http.Agent } | undefined;
  return (agent) => {
    const Agent = agent instanceof https.Agent && agent.constructor === https.Agent ? https.Agent : agent instanceof http.Agent && agent.constructor === http.Agent ? http.Agent : null;
    if (!Agent) return agent;
    const options = (agent as http.Agent & { options: Record<string, unknown> }).options;
    const key = `${Agent === https.Agent ? "https" : "http"}:${TLS_OPTIONS.map((k) => optionText(options[k])).join(";")}`;
    if (current?.key !== key) {
      current?.agent.destroy();
      current = { key, agent: new Agent({ ...options, keepAlive: true, maxSockets: KEEP_ALIVE_SOCKETS }) };
    }
    return current.agent;
  };
}

/** client-node's object API, with the URL of an object (its discovery included) open to the apply, which sends its own request. */
class PathsApi extends KubernetesObjectApi {
  pathOf(spec: KubernetesObject, action: "patch"): Promise<string> {
    return this.specUriPath(spec, action);
  }
}

const isKubeObject = (v: unknown): v is KubeObject => typeof v === "object" && v !== null && typeof (v as KubeObject).metadata === "object";

export function kubeClientFromConfig(kc: KubeConfig, options: ClusterClientOptions = {}): ClusterClient {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("the kubeconfig has no current cluster");
  const server = cluster.server;
  const fieldManager = options.fieldManager ?? "allot";
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const calls = new AsyncLocalStorage<CallContext>();
  const sharedAgent = keepAliveAgents();
  const shareAgent = (request: RequestContext) => {
    const agent = request.getAgent();
    if (agent) request.setAgent(sharedAgent(agent) as http.Agent);
  };

  // Built like KubernetesObjectApi.makeApiClient(kc), plus one middleware, so
  // that client-node does discovery, URLs, authentication and TLS while:
  // - each request goes through one keep-alive agent (keepAliveAgents);
  // - each request gets the call's AbortSignal: a timed-out call also closes
  //   its connection instead of leaving it to a hung server;
  // - an apply is not client-node's patch at all but a request of our own
  //   (sendRaw) carrying the object's own JSON: client-node serialises through
  //   its typed models, which silently drop fields whose model name differs
  //   from the JSON name (LimitRange `default` is `_default` there);
  // - responses are kept as JSON: the typed models rename fields the same way,
  //   and lose `continue` from custom resource lists (read as ObjectMeta).
  const middleware: Middleware = {
    pre(request) {
      shareAgent(request);
      const call = calls.getStore();
      if (call) request.setSignal(call.signal);
      return Promise.resolve(request);
    },
    async post(response) {
      const call = calls.getStore();
      if (!call || response.httpStatusCode < 200 || response.httpStatusCode > 299) return response;
      const text = await response.body.text();
      try {
        const parsed = JSON.parse(text) as { kind?: unknown };
        if (!DISCOVERY_KINDS.has(String(parsed.kind))) call.raw = parsed;
      } catch {
        // Not JSON: client-node reports it when it parses the body itself.
      }
      return new ResponseContext(response.httpStatusCode, response.headers, { text: () => Promise.resolve(text), binary: () => Promise.resolve(Buffer.from(text)) });
    },
  };
  const configuration = createConfiguration({ baseServer: new ServerConfiguration(server, {}), authMethods: { default: kc }, promiseMiddleware: [middleware] });
  const api = new PathsApi(configuration);

  /**
   * Sends a request built here (not by client-node's typed APIs) with the kubeconfig's
   * authentication, the shared keep-alive agent and the call's AbortSignal, and keeps the
   * answer's JSON as the call's result. A status outside 2xx is thrown as client-node's
   * ApiException with the body, so toClusterApiError reads its Status (reason, message,
   * Retry-After) exactly as for client-node's own calls.
   */
  async function sendRaw(request: RequestContext, what: string, label: string): Promise<void> {
    const context = calls.getStore();
    if (context) request.setSignal(context.signal);
    await kc.applySecurityAuthentication(request);
    shareAgent(request);
    const response = await configuration.httpApi.send(request).toPromise();
    const text = await response.body.text();
    if (response.httpStatusCode < 200 || response.httpStatusCode > 299) throw new ApiException(response.httpStatusCode, label, text, response.headers);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ClusterApiError(`${server} answered ${what} (${label}) with something that is not JSON`, { retryable: false });
    }
    // call() answers with what the call context holds (the middleware fills it for client-node's calls).
    if (context) context.raw = parsed;
  }

  /** Runs one client-node call under the timeout and returns the response JSON; every failure comes out as a ClusterApiError. */
  function call(operation: string, ref: { kind: string; namespace?: string; name?: string }, run: () => Promise<unknown>): Promise<unknown> {
    const attributes = { "server.address": server, "k8s.operation": operation, "k8s.kind": ref.kind, ...(ref.namespace ? { "k8s.namespace.name": ref.namespace } : {}), ...(ref.name ? { "k8s.object.name": ref.name } : {}) };
    return inSpan(`kube-api ${operation} ${ref.kind}`, attributes, () => callUnderTimeout(run));
  }

  async function callUnderTimeout(run: () => Promise<unknown>): Promise<unknown> {
    const controller = new AbortController();
    const context: CallContext = { signal: controller.signal };
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new ClusterApiError(`timed out after ${formatDuration(timeoutMs)} waiting for ${server}`, { reason: "Timeout", retryable: true }));
        controller.abort();
      }, timeoutMs);
    });
    try {
      await Promise.race([calls.run(context, run), timedOut]);
      return context.raw;
    } catch (err) {
      throw toClusterApiError(err, { server });
    } finally {
      clearTimeout(timer);
    }
  }

  function objectFrom(raw: unknown, what: string): KubeObject {
    if (!isKubeObject(raw)) throw new ClusterApiError(`${server} answered ${what} with something that is not a Kubernetes object`, { retryable: false });
    return raw;
  }

  // client-node fills in defaults on the object it is given (apiVersion, metadata, namespace): give it a copy.
  const header = (ref: ObjectRef) => ({ apiVersion: ref.apiVersion, kind: ref.kind, metadata: ref.namespace ? { name: ref.name, namespace: ref.namespace } : { name: ref.name } });
  const absent = (e: unknown) => e instanceof ClusterApiError && e.status === 404 && e.reason !== UNKNOWN_KIND;
  const describe = (ref: ObjectRef) => `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ""}${ref.name}`;

  return {
    server,
    fieldManager,
    async apply(object) {
      const ref = { kind: object.kind ?? "object", namespace: object.metadata?.namespace, name: object.metadata?.name };
      const raw = await call("apply", ref, async () => {
        // The URL from client-node (discovery cached per apiVersion, shared with read, list and remove);
        // the body is the object's own JSON, sent as is: client-node's typed serialising of the body and
        // of the answer drops renamed fields and costs more CPU than the request itself.
        const path = await api.pathOf({ ...object, metadata: { ...object.metadata } }, "patch");
        const request = configuration.baseServer.makeRequestContext(path, HttpMethod.PATCH);
        request.setHeaderParam("Accept", "application/json, */*;q=0.8");
        request.setHeaderParam("Content-Type", PatchStrategy.ServerSideApply);
        request.setQueryParam("fieldManager", fieldManager);
        request.setQueryParam("force", "true");
        request.setBody(JSON.stringify(object));
        await sendRaw(request, `the apply of ${object.kind} ${object.metadata?.name}`, `PATCH ${path}`);
      });
      return objectFrom(raw, `the apply of ${object.kind} ${object.metadata?.name}`);
    },
    async read(ref) {
      try {
        return objectFrom(await call("read", ref, () => api.read(header(ref))), `a read of ${describe(ref)}`);
      } catch (err) {
        if (absent(err)) return null;
        throw err;
      }
    },
    async list(apiVersion, kind, { namespace, labelSelector }) {
      const items: KubeObject[] = [];
      let token: string | undefined;
      do {
        const previous = token;
        const raw = (await call("list", { kind, namespace }, () => api.list(apiVersion, kind, namespace, undefined, undefined, undefined, undefined, labelSelector || undefined, pageSize, previous))) as {
          items?: unknown;
          metadata?: { continue?: unknown };
        } | undefined;
        if (!raw || !Array.isArray(raw.items)) throw new ClusterApiError(`${server} answered a list of ${kind} without items`, { retryable: false });
        // A real server leaves apiVersion and kind off the items of built-in lists.
        for (const item of raw.items) items.push({ ...objectFrom(item, `a list of ${kind}`), apiVersion, kind });
        token = typeof raw.metadata?.continue === "string" && raw.metadata.continue !== "" ? raw.metadata.continue : undefined;
        if (token !== undefined && token === previous) throw new ClusterApiError(`${server} returned the same continue token twice listing ${kind}`, { retryable: false });
      } while (token !== undefined);
      return items;
    },
    async getJson(path, what) {
      if (!path.startsWith("/")) throw new Error(`getJson takes an absolute API path, not ${path}`);
      const url = server.replace(/\/+$/, "") + path;
      return call("get", { kind: what }, async () => {
        const request = new RequestContext(url, HttpMethod.GET);
        request.setHeaderParam("Accept", "application/json");
        await sendRaw(request, what, `GET ${path}`);
      });
    },
    async remove(ref) {
      try {
        await call("delete", ref, () => api.delete(header(ref)));
        return "deleted";
      } catch (err) {
        if (absent(err)) return "absent";
        throw err;
      }
    },
  };
}

/** "10 s", "1.5 s", "250 ms". */
function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  return `${Number.isInteger(ms / 1000) ? ms / 1000 : (ms / 1000).toFixed(1)} s`;
}

// ---------------------------------------------------------------------------
// Error classification

interface KubeStatusBody {
  kind?: string;
  message?: string;
  reason?: string;
  details?: { retryAfterSeconds?: number };
}

function statusOf(body: unknown): KubeStatusBody | undefined {
  let parsed = body;
  if (Buffer.isBuffer(parsed)) parsed = parsed.toString("utf8");
  if (typeof parsed === "string") {
    try {
      parsed = JSON.parse(parsed);
    } catch {
      return undefined;
    }
  }
  if (typeof parsed !== "object" || parsed === null || (parsed as KubeStatusBody).kind !== "Status") return undefined;
  return parsed;
}

/** Retry-After as seconds or an HTTP date. */
function retryAfterFrom(header: string | undefined, status: KubeStatusBody | undefined): number | undefined {
  if (header !== undefined && header.trim() !== "") {
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  const seconds = status?.details?.retryAfterSeconds;
  return typeof seconds === "number" && seconds >= 0 ? seconds * 1000 : undefined;
}

/** An ApiException from client-node, recognised by shape too (a second copy of the library has its own class). */
function asHttpError(err: unknown): { code: number; body: unknown; headers: Record<string, string> } | undefined {
  if (err instanceof ApiException) return { code: err.code, body: err.body as unknown, headers: err.headers ?? {} };
  if (err instanceof Error && typeof (err as { code?: unknown }).code === "number" && "body" in err) {
    const e = err as Error & { code: number; body: unknown; headers?: Record<string, string> };
    return { code: e.code, body: e.body, headers: e.headers ?? {} };
  }
  return undefined;
}

/** Error codes along the cause chain (node-fetch puts them on the error, undici on its cause). */
function errorCodes(err: unknown): string[] {
  const codes: string[] = [];
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
  }
  return codes;
}

const REFUSED = ["ECONNREFUSED"];
const RESET = ["ECONNRESET", "EPIPE", "ECONNABORTED", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "ERR_STREAM_PREMATURE_CLOSE"];
const NETWORK = ["ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN", "ENETDOWN", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"];
const TLS = /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_(VERIFY|GET)_)/;

const DISCOVERY = /^Failed to fetch resource metadata for (\S+): /;
const UNRECOGNISED = /^Unrecognized API version and kind: (.+)$/;

/**
 * What went wrong, and whether trying again can help:
 * - 5xx, 429 (with Retry-After), 408: retryable;
 * - 409: conflict, retryable (apply again on the fresh object);
 * - other 4xx: not retryable (the request itself is wrong, or forbidden);
 * - timeouts, refused, reset or unreachable connections: retryable;
 * - TLS failures and anything else: not retryable.
 * A kind the cluster does not serve is status 404 with reason UnknownKind.
 * The message is the API's Status.message when there is one.
 */
export function toClusterApiError(err: unknown, context: { server?: string } = {}): ClusterApiError {
  if (err instanceof ClusterApiError) return err;
  const text = err instanceof Error ? err.message : String(err);
  // client-node discovers a kind's resource name first, and prefixes discovery failures.
  const discovery = DISCOVERY.exec(text)?.[1];

  const http = asHttpError(err);
  if (http) {
    const status = statusOf(http.body);
    if (discovery && http.code === 404) {
      return new ClusterApiError(`the cluster does not serve ${discovery} (not installed, or not at this API version)`, { status: 404, reason: UNKNOWN_KIND, retryable: false, cause: err });
    }
    const where = context.server ? ` from ${context.server}` : "";
    let message = status?.message || `HTTP ${http.code} ${STATUS_CODES[http.code] ?? ""}`.trim() + where;
    if (discovery) message += ` (discovering ${discovery})`;
    const retryable = http.code >= 500 || http.code === 429 || http.code === 408 || http.code === 409;
    const headers = Object.fromEntries(Object.entries(http.headers).map(([k, v]) => [k.toLowerCase(), v]));
    return new ClusterApiError(message, {
      status: http.code,
      reason: status?.reason,
      retryable,
      conflict: http.code === 409,
      retryAfterMs: retryable ? retryAfterFrom(headers["retry-after"], status) : undefined,
      cause: err,
    });
  }

  const unrecognised = UNRECOGNISED.exec(text)?.[1];
  if (unrecognised) return new ClusterApiError(`the cluster does not serve ${unrecognised.replace(" ", "/")}`, { status: 404, reason: UNKNOWN_KIND, retryable: false, cause: err });

  const url = /request to (\S+) failed/.exec(text)?.[1] ?? context.server ?? "the API server";
  const codes = errorCodes(err);
  const has = (list: string[]) => codes.some((c) => list.includes(c));
  if (has(REFUSED)) return new ClusterApiError(`connection refused to ${url}`, { reason: "ConnectionRefused", retryable: true, cause: err });
  if (has(RESET) || /socket hang up|premature close/i.test(text)) {
    return new ClusterApiError(`connection to ${url} was closed before a response`, { reason: "ConnectionReset", retryable: true, cause: err });
  }
  if (codes.some((c) => TLS.test(c))) return new ClusterApiError(`TLS failure talking to ${url}: ${text}`, { reason: "TLSError", retryable: false, cause: err });
  if (has(NETWORK)) return new ClusterApiError(`cannot reach ${url} (${codes.find((c) => NETWORK.includes(c))})`, { reason: "NetworkError", retryable: true, cause: err });
  if (err instanceof Error && err.name === "AbortError") return new ClusterApiError(`request to ${url} was aborted`, { reason: "Timeout", retryable: true, cause: err });
  // undici's fetch says only "fetch failed" and keeps the why in `cause`, handled above when it has a code.
  if (text === "fetch failed") return new ClusterApiError(`cannot reach ${url}`, { reason: "NetworkError", retryable: true, cause: err });
  return new ClusterApiError(discovery ? text.replace(DISCOVERY, `discovering $1: `) : text, { retryable: false, cause: err });
}

// ---------------------------------------------------------------------------
// Connecting

const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

type Environment = Readonly<Record<string, string | undefined>>;

export type ClusterConnection = { mode: "live"; kubeConfig: KubeConfig; server: string } | { mode: "record-only" };

/**
 * Where the portal's cluster is:
 * - ALLOT_CLUSTER_MODE=record-only: nowhere, by choice (plans are recorded, nothing is applied);
 * - KUBECONFIG set: the current context of that file (or ':'-separated files, merged as kubectl does);
 * - inside a pod (KUBERNETES_SERVICE_HOST and a service account token): the in-cluster API server;
 * - otherwise record-only.
 * `serviceAccountDir` is for tests. Throws when KUBECONFIG names a file that cannot be read.
 */
export function clusterConnection(env: Environment = process.env, serviceAccountDir = SERVICE_ACCOUNT_DIR): ClusterConnection {
  if (env.ALLOT_CLUSTER_MODE === "record-only") return { mode: "record-only" };
  const kc = new KubeConfig();
  if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(path.delimiter).filter(Boolean);
    files.forEach((file, i) => {
      const one = i === 0 ? kc : new KubeConfig();
      try {
        one.loadFromFile(file);
        // As kubectl: the first file that names a current context wins (client-node's default is the last).
        if (one !== kc) kc.mergeConfig(one, Boolean(kc.getCurrentContext()));
      } catch (err) {
        throw new Error(`KUBECONFIG: cannot load ${file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    });
  } else if (env.KUBERNETES_SERVICE_HOST && fs.existsSync(path.join(serviceAccountDir, "token"))) {
    loadInCluster(kc, env, serviceAccountDir);
  } else {
    return { mode: "record-only" };
  }
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error(`KUBECONFIG: the current context ("${kc.getCurrentContext()}") names no cluster with a server`);
  return { mode: "live", kubeConfig: kc, server };
}

/** KubeConfig.loadFromCluster, but reading host and port from `env` and files from `dir`. */
function loadInCluster(kc: KubeConfig, env: Environment, dir: string): void {
  const host = env.KUBERNETES_SERVICE_HOST!;
  const port = env.KUBERNETES_SERVICE_PORT ?? "443";
  const scheme = ["80", "8080", "8001"].includes(port) ? "http" : "https";
  const namespaceFile = path.join(dir, "namespace");
  kc.loadFromOptions({
    clusters: [{ name: "inCluster", server: `${scheme}://${net.isIPv6(host) ? `[${host}]` : host}:${port}`, caFile: path.join(dir, "ca.crt"), skipTLSVerify: false }],
    // The tokenFile provider rereads the token, which the kubelet rotates.
    users: [{ name: "inClusterUser", authProvider: { name: "tokenFile", config: { tokenFile: path.join(dir, "token") } } }],
    contexts: [{ name: "inClusterContext", cluster: "inCluster", user: "inClusterUser", namespace: fs.existsSync(namespaceFile) ? fs.readFileSync(namespaceFile, "utf8").trim() : undefined }],
    currentContext: "inClusterContext",
  });
}

/** A KubeConfig for a plain http URL with no authentication: the stand-in API server in tests and benchmarks. */
export function kubeConfigFor(url: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // client-node refuses http:// unless skipTLSVerify is set; there is no TLS to verify.
    clusters: [{ name: "stand-in", server: url, skipTLSVerify: url.startsWith("http:") }],
    users: [{ name: "anonymous" }],
    contexts: [{ name: "stand-in", cluster: "stand-in", user: "anonymous" }],
    currentContext: "stand-in",
  });
  return kc;
}
