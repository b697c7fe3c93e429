import http from "node:http";
import type { AddressInfo } from "node:net";
import { parse as parseYaml } from "yaml";
import { permits, type ClusterPermission } from "@/lib/cluster/permissions";
import { isObject, type JsonObject } from "./apply";
import { FaultQueue, type Fault, type RequestFacts } from "./faults";
import { parseLabelSelector, SelectorError, type LabelSelector } from "./label-selector";
import { authorize } from "./authorize";
import { apiVersionOf, coreVersions, groupList, resourceList, resourceTypes, visibilityVersions, type KueueVersion, type ResourceType } from "./resources";
import { failure, noSuchResource, notFound, REASONS, StatusError, success, type KubeStatus } from "./status";
import { compareKeys, ObjectStore, type StoredObject } from "./store";
import { pendingWorkloadsSummary, VISIBILITY_GROUP } from "./visibility";

/**
 * A stand-in Kubernetes API server for tests (no real one can run here): the
 * HTTP protocol @kubernetes/client-node speaks (discovery, server-side apply,
 * get, list with label selectors and paging, delete, create), objects kept in
 * memory, and faults on demand. See ./faults.ts for the faults and ./apply.ts
 * for how far server-side apply is modelled.
 */

export type { Fault, FaultMatch } from "./faults";
/** Where a journey in another process queues faults (POST one as JSON) or clears them (DELETE). */
export const FAULTS_PATH = "/stand-in/faults";
export { FaultQueue } from "./faults";
export type { StoredObject, StoredMetadata, ManagedFieldsEntry } from "./store";
export type { KueueVersion } from "./resources";

export interface StandInOptions {
  /** Default 0: any free port. */
  port?: number;
  /** The Kueue API versions served; [] is a cluster without Kueue. Default both, v1beta2 preferred. */
  kueueVersions?: KueueVersion[];
  /** Namespaces that exist from the start (and again after reset()). Default ["default", "kube-system"]. */
  namespaces?: string[];
  /**
   * Enforce RBAC as if the client held exactly these rules (lib/cluster/permissions.ts):
   * a request they do not allow is answered 403 Forbidden and kept in `forbidden`.
   * Discovery stays open, as the built-in system:discovery role keeps it. Default: allow all.
   */
  permissions?: readonly ClusterPermission[];
}

export interface RecordedRequest {
  /** When it arrived (Date.now()). */
  at: number;
  method: string;
  path: string;
  query: Record<string, string>;
  contentType: string | undefined;
  body: string;
  /** The client closed the connection before an answer was sent (it gave up: a timeout). */
  abandoned: boolean;
}

export interface StandInApiServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  /** Faults for the next matching requests. */
  readonly faults: FaultQueue;
  /** Every request received, in order (cleared by reset()). */
  readonly requests: RecordedRequest[];
  /** The messages of requests refused under `permissions`, in order (cleared by reset()). */
  readonly forbidden: string[];
  /** TCP connections accepted since the start (a client without keep-alive opens one per request; not cleared by reset()). */
  readonly connections: number;
  /** Every stored object, ordered by namespace and name. */
  objects(): StoredObject[];
  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): StoredObject | undefined;
  /** Stores an object directly, as another writer would: to seed, or to make drift. */
  put(object: object): StoredObject;
  /** Sets an object's status as its controller would (Kueue on a ClusterQueue or Workload); the object must exist. */
  setStatus(apiVersion: string, kind: string, namespace: string | undefined, name: string, status: object): StoredObject;
  /** Deletes an object directly (a Namespace with its contents); false when absent. */
  remove(apiVersion: string, kind: string, namespace: string | undefined, name: string): boolean;
  /** Back to the starting namespaces, no faults, no recorded requests; requests still being delayed are dropped. */
  reset(): void;
  /** Stop listening and drop every connection: clients now get ECONNREFUSED. Objects are kept. */
  stop(): Promise<void>;
  /** Listen again on the same port. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

type Route =
  | { type: "discovery"; body: object | undefined }
  | { type: "collection"; resource: ResourceType; namespace?: string }
  | { type: "object"; resource: ResourceType; namespace?: string; name: string }
  | { type: "status"; resource: ResourceType; namespace?: string; name: string }
  | { type: "pendingworkloads"; version: string; namespace: string; localQueue: string };

const APPLY_PATCH = "application/apply-patch+yaml";

export async function startStandInApiServer(options: StandInOptions = {}): Promise<StandInApiServer> {
  const kueueVersions = options.kueueVersions ?? ["v1beta1", "v1beta2"];
  const types = resourceTypes(kueueVersions);
  const visibility = visibilityVersions(kueueVersions);
  const startingNamespaces = options.namespaces ?? ["default", "kube-system"];
  const store = new ObjectStore(types);
  const faults = new FaultQueue();
  const requests: RecordedRequest[] = [];
  const forbidden: string[] = [];
  /** Delays in progress, ended early (and their requests dropped) when the server stops. */
  const delays = new Set<() => void>();

  const seed = () => {
    store.clear();
    for (const name of startingNamespaces) store.put({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  };
  seed();

  function typeFor(group: string, version: string, plural: string): ResourceType | undefined {
    return types.find((t) => t.group === group && t.version === version && t.plural === plural);
  }

  function route(segments: string[]): Route | undefined {
    if (segments.length === 1 && segments[0] === "api") return { type: "discovery", body: coreVersions() };
    if (segments.length === 1 && segments[0] === "apis") return { type: "discovery", body: groupList(types, [{ group: VISIBILITY_GROUP, versions: visibility }]) };
    // /apis/visibility.kueue.x-k8s.io/V/namespaces/NS/localqueues/LQ/pendingworkloads
    if (segments[0] === "apis" && segments[1] === VISIBILITY_GROUP && visibility.includes(segments[2] as KueueVersion)) {
      const rest = segments.slice(3);
      if (rest.length === 0) return { type: "discovery", body: { kind: "APIResourceList", apiVersion: "v1", groupVersion: `${VISIBILITY_GROUP}/${segments[2]}`, resources: [{ name: "localqueues/pendingworkloads", namespaced: true, kind: "PendingWorkloadsSummary", verbs: ["get"] }] } };
      if (rest.length === 5 && rest[0] === "namespaces" && rest[2] === "localqueues" && rest[4] === "pendingworkloads") return { type: "pendingworkloads", version: segments[2]!, namespace: rest[1]!, localQueue: rest[3]! };
      return undefined;
    }
    let group: string;
    let version: string;
    let rest: string[];
    if (segments[0] === "api" && segments.length >= 2) [group, version, rest] = ["", segments[1]!, segments.slice(2)];
    else if (segments[0] === "apis" && segments.length >= 3) [group, version, rest] = [segments[1]!, segments[2]!, segments.slice(3)];
    else return undefined;
    if (rest.length === 0) return { type: "discovery", body: resourceList(types, group, version) };
    // /namespaces/NS/PLURAL[/NAME[/status]]: a namespaced resource (not the Namespace object itself).
    if (rest[0] === "namespaces" && rest.length >= 3) {
      const resource = typeFor(group, version, rest[2]!);
      if (!resource?.namespaced || rest.length > 5 || (rest.length === 5 && rest[4] !== "status")) return undefined;
      if (rest.length === 5) return { type: "status", resource, namespace: rest[1]!, name: rest[3]! };
      return rest.length === 3 ? { type: "collection", resource, namespace: rest[1]! } : { type: "object", resource, namespace: rest[1]!, name: rest[3]! };
    }
    const resource = typeFor(group, version, rest[0]!);
    if (!resource || rest.length > 3 || (rest.length === 3 && rest[2] !== "status")) return undefined;
    if (rest.length === 1) return { type: "collection", resource };
    if (resource.namespaced) return undefined;
    return rest.length === 3 ? { type: "status", resource, name: rest[1]! } : { type: "object", resource, name: rest[1]! };
  }

  function send(res: http.ServerResponse, code: number, body: object, headers: Record<string, string> = {}): void {
    if (res.destroyed || res.writableEnded) return;
    const text = JSON.stringify(body);
    res.writeHead(code, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  function sendFault(res: http.ServerResponse, fault: Fault & { status: number }): void {
    const reason = fault.reason ?? REASONS[fault.status] ?? "Unknown";
    const status: KubeStatus = failure(fault.status, fault.message ?? `injected fault: ${fault.status} ${reason}`, reason);
    const headers: Record<string, string> = {};
    if (fault.retryAfterSeconds !== undefined) {
      headers["retry-after"] = String(fault.retryAfterSeconds);
      status.details = { retryAfterSeconds: fault.retryAfterSeconds };
    }
    send(res, fault.status, status, headers);
  }

  /** Resolves true after `ms`, or false if the server stops first. */
  function delay(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const cancel = () => {
        clearTimeout(timer);
        delays.delete(cancel);
        resolve(false);
      };
      const timer = setTimeout(() => {
        delays.delete(cancel);
        resolve(true);
      }, ms);
      delays.add(cancel);
    });
  }

  function parseBody(text: string): JsonObject {
    let parsed: unknown;
    try {
      parsed = parseYaml(text);
    } catch (err) {
      throw new StatusError(400, `error decoding YAML: ${(err as Error).message}`);
    }
    if (!isObject(parsed)) throw new StatusError(400, "the body must be a Kubernetes object");
    return parsed;
  }

  function list(res: http.ServerResponse, resource: ResourceType, namespace: string | undefined, query: URLSearchParams): void {
    if (query.get("watch") === "true" || query.get("watch") === "1") throw new StatusError(400, "watch is not supported by the stand-in API server");
    let selector: LabelSelector;
    try {
      selector = parseLabelSelector(query.get("labelSelector"));
    } catch (err) {
      if (err instanceof SelectorError) throw new StatusError(400, `unable to parse requirement: ${err.message}`);
      throw err;
    }
    const fieldSelector = parseFieldSelector(query.get("fieldSelector"));
    let items = store.list(resource, namespace, selector).filter(fieldSelector);

    // Paging: `limit` items at a time, `continue` names the last key served.
    const token = query.get("continue");
    if (token) {
      let after: string;
      try {
        after = (JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { after: string }).after;
      } catch {
        throw new StatusError(400, "continue key is not valid");
      }
      if (typeof after !== "string") throw new StatusError(400, "continue key is not valid");
      items = items.filter((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name}` > after);
    }
    const limit = Number(query.get("limit") ?? "0");
    const metadata: Record<string, unknown> = { resourceVersion: store.resourceVersion };
    if (limit > 0 && items.length > limit) {
      const last = items[limit - 1]!;
      metadata.continue = Buffer.from(JSON.stringify({ after: `${last.metadata.namespace ?? ""}/${last.metadata.name}` })).toString("base64url");
      metadata.remainingItemCount = items.length - limit;
      items = items.slice(0, limit);
    }
    send(res, 200, { kind: `${resource.kind}List`, apiVersion: apiVersionOf(resource), metadata, items: items.sort(compareKeys) });
  }

  /** The ClusterQueue a LocalQueue feeds, read from the stored LocalQueues of any served Kueue version. */
  function clusterQueueOf(namespace: string, localQueue: string): string | undefined {
    const local = types.find((t) => t.kind === "LocalQueue");
    const found = local && store.get(local, namespace, localQueue);
    const target = (found?.spec as { clusterQueue?: unknown } | undefined)?.clusterQueue;
    return typeof target === "string" ? target : undefined;
  }

  function pendingWorkloads(req: http.IncomingMessage, res: http.ServerResponse, r: Extract<Route, { type: "pendingworkloads" }>): void {
    if ((req.method ?? "GET") !== "GET") throw new StatusError(405, "the server does not allow this method on the requested resource");
    if (options.permissions && !permits(options.permissions, { apiGroup: VISIBILITY_GROUP, resource: "localqueues/pendingworkloads", verb: "get", name: r.localQueue })) {
      const message = `localqueues.${VISIBILITY_GROUP} "${r.localQueue}" is forbidden: User "system:serviceaccount:allot:allot" cannot get resource "localqueues/pendingworkloads" in API group "${VISIBILITY_GROUP}" in the namespace "${r.namespace}"`;
      forbidden.push(message);
      throw new StatusError(403, message, "Forbidden", { name: r.localQueue, group: VISIBILITY_GROUP, kind: "localqueues" });
    }
    if (clusterQueueOf(r.namespace, r.localQueue) === undefined) throw notFound("localqueues", r.localQueue, VISIBILITY_GROUP);
    const workload = types.find((t) => t.kind === "Workload")!;
    send(res, 200, pendingWorkloadsSummary(r.version, store.list(workload, undefined, () => true), clusterQueueOf, r.namespace, r.localQueue));
  }

  /**
   * The status subresource, as Kueue's controllers write it: GET, and
   * server-side apply of `{ status }`. One status writer is modelled (the
   * controller), so the applied status replaces the stored one whole; spec
   * and metadata in the body are ignored, as the real server ignores them on
   * /status. Lets a separate process (an end-to-end journey) play Kueue.
   */
  function handleStatus(req: http.IncomingMessage, res: http.ServerResponse, r: Extract<Route, { type: "status" }>, query: URLSearchParams, body: string): void {
    const method = req.method ?? "GET";
    const { resource, namespace, name } = r;
    const verb = method === "GET" ? "get" : method === "PATCH" ? "patch" : method === "PUT" ? "update" : method.toLowerCase();
    if (options.permissions && !permits(options.permissions, { apiGroup: resource.group, resource: `${resource.plural}/status`, verb, name })) {
      const message = `${resource.plural}${resource.group ? `.${resource.group}` : ""} "${name}" is forbidden: User "system:serviceaccount:allot:allot" cannot ${verb} resource "${resource.plural}/status" in API group "${resource.group}" ${namespace !== undefined ? `in the namespace "${namespace}"` : "at the cluster scope"}`;
      forbidden.push(message);
      throw new StatusError(403, message, "Forbidden", { name, group: resource.group, kind: resource.plural });
    }
    const found = store.get(resource, namespace, name);
    if (!found) throw notFound(resource.plural, name, resource.group);
    if (method === "GET") return send(res, 200, found);
    if (method !== "PATCH") throw new StatusError(405, "the server does not allow this method on the requested resource");
    const contentType = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (contentType !== APPLY_PATCH) throw new StatusError(415, `the stand-in API server supports only server-side apply (${APPLY_PATCH}) on status, not ${contentType || "a patch without a content type"}`);
    if (!query.get("fieldManager")) throw new StatusError(400, "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
    const status = parseBody(body).status;
    if (!isObject(status)) throw new StatusError(422, `${resource.kind} "${name}" is invalid: status: Required value: an apply to the status subresource carries a status object`, "Invalid");
    return send(res, 200, store.put({ ...found, status } as unknown as JsonObject));
  }

  function handleResource(req: http.IncomingMessage, res: http.ServerResponse, r: Extract<Route, { type: "collection" | "object" }>, query: URLSearchParams, body: string): void {
    const method = req.method ?? "GET";
    const { resource } = r;
    if (options.permissions) {
      const refusal = authorize(options.permissions, {
        method,
        resource,
        namespace: r.namespace,
        name: r.type === "object" ? r.name : undefined,
        query,
        exists: r.type === "object" && store.get(resource, r.namespace, r.name) !== undefined,
        body: method === "PATCH" || method === "POST" ? () => parseBody(body) : undefined,
      });
      if (refusal) {
        forbidden.push(refusal);
        throw new StatusError(403, refusal, "Forbidden", { name: r.type === "object" ? r.name : undefined, group: resource.group, kind: resource.plural });
      }
    }
    if (r.type === "collection") {
      if (method === "GET") return list(res, resource, r.namespace, query);
      if (method === "POST") {
        if (resource.namespaced && r.namespace === undefined) throw new StatusError(405, `POST is not supported on ${resource.plural} across all namespaces`);
        return send(res, 201, store.create(resource, r.namespace, parseBody(body)));
      }
      throw new StatusError(405, `the server does not allow this method on the requested resource`);
    }

    const { namespace, name } = r;
    if (method === "GET") {
      const found = store.get(resource, namespace, name);
      if (!found) throw notFound(resource.plural, name, resource.group);
      return send(res, 200, found);
    }
    if (method === "DELETE") {
      const removed = store.remove(resource, namespace, name);
      if (!removed) throw notFound(resource.plural, name, resource.group);
      return send(res, 200, success({ name, group: resource.group, kind: resource.plural, uid: removed.metadata.uid }));
    }
    if (method === "PATCH") {
      const contentType = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
      if (contentType !== APPLY_PATCH) {
        throw new StatusError(415, `the stand-in API server supports only server-side apply (${APPLY_PATCH}), not ${contentType || "a patch without a content type"}`);
      }
      const manager = query.get("fieldManager");
      if (!manager) throw new StatusError(400, "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
      if (query.has("dryRun")) throw new StatusError(400, "dryRun is not supported by the stand-in API server");
      const { object, created } = store.apply(resource, namespace, name, parseBody(body), manager, query.get("force") === "true");
      return send(res, created ? 201 : 200, object);
    }
    throw new StatusError(405, "the server does not allow this method on the requested resource");
  }

  function controlFaults(method: string, body: string, res: http.ServerResponse): void {
    if (method === "DELETE") {
      faults.clear();
      return send(res, 200, {});
    }
    if (method !== "POST") return send(res, 405, { message: `POST a fault or DELETE them at ${FAULTS_PATH}` });
    const fault = JSON.parse(body) as Fault;
    faults.push(fault);
    return send(res, 201, {});
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://stand-in");
    const method = (req.method ?? "GET").toUpperCase();
    // Not Kubernetes: how a journey in another process queues faults (POST a Fault as JSON, DELETE to clear them).
    // Kept out of the recorded requests, so what the portal sent is all they hold.
    if (url.pathname === FAULTS_PATH) return controlFaults(method, body, res);
    const record: RecordedRequest = { at: Date.now(), method, path: url.pathname, query: Object.fromEntries(url.searchParams), contentType: req.headers["content-type"], body, abandoned: false };
    requests.push(record);
    let droppedHere = false;
    res.on("close", () => {
      if (!res.writableFinished && !droppedHere) record.abandoned = true;
    });

    const segments = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    const r = route(segments);
    const facts: RequestFacts = { method, path: url.pathname, discovery: r?.type === "discovery" };
    if (r && (r.type === "collection" || r.type === "object" || r.type === "status")) Object.assign(facts, { kind: r.resource.kind, namespace: r.namespace, name: r.type === "collection" ? undefined : r.name });
    if (r?.type === "pendingworkloads") Object.assign(facts, { kind: "PendingWorkloadsSummary", namespace: r.namespace, name: r.localQueue });

    const fault = faults.take(facts);
    if ((fault?.delayMs !== undefined && !(await delay(fault.delayMs))) || fault?.refuse) {
      droppedHere = true;
      req.socket.destroy();
      return;
    }
    if (fault?.status !== undefined) return sendFault(res, { ...fault, status: fault.status });

    if (!r) throw noSuchResource();
    if (r.type === "discovery") {
      if (method !== "GET") throw new StatusError(405, "the server does not allow this method on the requested resource");
      if (!r.body) throw noSuchResource();
      return send(res, 200, r.body);
    }
    if (r.type === "pendingworkloads") return pendingWorkloads(req, res, r);
    if (r.type === "status") return handleStatus(req, res, r, url.searchParams, body);
    handleResource(req, res, r, url.searchParams, body);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof StatusError) send(res, err.status.code, err.status);
      else send(res, 500, failure(500, `stand-in API server error: ${err instanceof Error ? err.message : String(err)}`));
    });
  });

  let connections = 0;
  server.on("connection", () => {
    connections += 1;
  });

  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve((server.address() as AddressInfo).port);
      });
    });

  const stop = () =>
    new Promise<void>((resolve) => {
      for (const cancel of [...delays]) cancel();
      if (!server.listening) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });

  const port = await listen(options.port ?? 0);

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    faults,
    requests,
    forbidden,
    get connections() {
      return connections;
    },
    objects: () => store.all(),
    get(apiVersion, kind, namespace, name) {
      const type = store.typeOf(apiVersion, kind);
      return type && store.get(type, namespace, name);
    },
    put: (object) => store.put(object as JsonObject),
    setStatus(apiVersion, kind, namespace, name, status) {
      const type = store.typeOf(apiVersion, kind);
      const found = type && store.get(type, namespace, name);
      if (!found) throw new Error(`setStatus: no ${kind} ${namespace ? `${namespace}/` : ""}${name}`);
      return store.put({ ...found, status } as unknown as JsonObject);
    },
    remove(apiVersion, kind, namespace, name) {
      const type = store.typeOf(apiVersion, kind);
      return type !== undefined && store.remove(type, namespace, name) !== undefined;
    },
    reset() {
      // Delayed requests of an earlier test must not land in the next one.
      for (const cancel of [...delays]) cancel();
      seed();
      faults.clear();
      requests.length = 0;
      forbidden.length = 0;
    },
    stop,
    async restart() {
      if (!server.listening) await listen(port);
    },
    close: stop,
  };
}

/** `metadata.name=x`, `metadata.namespace!=y`, comma-joined: the field selectors the real server supports for every kind. */
function parseFieldSelector(text: string | null): (o: StoredObject) => boolean {
  if (!text) return () => true;
  const tests = text.split(",").map((part) => {
    const m = /^(metadata\.name|metadata\.namespace)\s*(==|=|!=)\s*(.*)$/.exec(part.trim());
    if (!m) throw new StatusError(400, `field label not supported: ${part.split(/[=!]/)[0]}`);
    const [, field, op, value] = m;
    return (o: StoredObject) => {
      const actual = field === "metadata.name" ? o.metadata.name : (o.metadata.namespace ?? "");
      return op === "!=" ? actual !== value : actual === value;
    };
  });
  return (o) => tests.every((t) => t(o));
}
