import { randomUUID } from "node:crypto";
import { deepEqual, fieldsV1, findConflicts, formatPath, isObject, mergeApplied, valueAt, withoutPaths, type FieldPath, type Json, type JsonObject } from "./apply";
import type { LabelSelector } from "./label-selector";
import { apiVersionOf, splitApiVersion, type ResourceType } from "./resources";
import { notFound, StatusError } from "./status";

/**
 * The stand-in's objects, kept the way the API server keeps them: one copy per
 * group, kind, namespace and name (a Kueue object applied as v1beta1 is read as
 * v1beta2 too, without conversion), with the fields the server owns (uid,
 * resourceVersion, creationTimestamp, generation, managedFields) filled in.
 */

export interface ManagedFieldsEntry {
  manager: string;
  operation: "Apply";
  apiVersion: string;
  time: string;
  fieldsType: "FieldsV1";
  fieldsV1: JsonObject;
}

export interface StoredMetadata {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
  generation: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  managedFields?: ManagedFieldsEntry[];
  [field: string]: unknown;
}

export interface StoredObject {
  apiVersion: string;
  kind: string;
  metadata: StoredMetadata;
  [field: string]: unknown;
}

/** What one field manager applied last, for removing fields it stops applying. */
interface AppliedConfig {
  config: JsonObject;
  apiVersion: string;
  time: string;
}

interface Entry {
  object: JsonObject;
  managers: Map<string, AppliedConfig>;
}

/** Fields a client may send but the server owns; stripped from applied and created bodies. */
const SERVER_METADATA = ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"];

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

const keyOf = (type: ResourceType, namespace: string | undefined, name: string) => `${type.group}|${type.kind}|${namespace ?? ""}|${name}`;

/** A field's value for a message or a key: strings as they are, anything else as JSON. */
const show = (value: Json | undefined): string => (typeof value === "string" ? value : JSON.stringify(value) ?? "");

const metadataOf = (o: JsonObject): JsonObject => (isObject(o.metadata) ? o.metadata : {});

/** Everything except metadata and status: a change there bumps metadata.generation. */
const specOf = (o: JsonObject) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== "metadata" && k !== "status"));

function withoutResourceVersion(o: JsonObject): JsonObject {
  const metadata = { ...metadataOf(o) };
  delete metadata.resourceVersion;
  return { ...o, metadata };
}

/** The body as a configuration: no apiVersion, kind, status or server-owned metadata. */
function configOf(body: JsonObject): JsonObject {
  const config: JsonObject = { ...body };
  delete config.apiVersion;
  delete config.kind;
  delete config.status;
  const metadata = { ...metadataOf(body) };
  for (const field of SERVER_METADATA) delete metadata[field];
  config.metadata = metadata;
  return config;
}

export class ObjectStore {
  private entries = new Map<string, Entry>();
  private revision = 0;

  constructor(private readonly types: readonly ResourceType[]) {}

  /** The latest resourceVersion, as a list reports it. */
  get resourceVersion(): string {
    return String(this.revision);
  }

  typeOf(apiVersion: string, kind: string): ResourceType | undefined {
    const { group, version } = splitApiVersion(apiVersion);
    return this.types.find((t) => t.group === group && t.version === version && t.kind === kind);
  }

  namespaceExists(name: string): boolean {
    return this.entries.has(`|Namespace||${name}`);
  }

  get(type: ResourceType, namespace: string | undefined, name: string): StoredObject | undefined {
    const entry = this.entries.get(keyOf(type, type.namespaced ? namespace : undefined, name));
    return entry && this.view(type, entry.object);
  }

  /** Objects of a type, in one namespace or all, ordered by namespace and name. */
  list(type: ResourceType, namespace: string | undefined, selector: LabelSelector): StoredObject[] {
    const found: StoredObject[] = [];
    // Filter on the stored object and copy only the matches: a list must not cost a copy of the whole store.
    for (const entry of this.entries.values()) {
      const stored = entry.object as unknown as StoredObject;
      if (splitApiVersion(show(entry.object.apiVersion)).group !== type.group || stored.kind !== type.kind) continue;
      if (namespace !== undefined && stored.metadata.namespace !== namespace) continue;
      if (selector(stored.metadata.labels)) found.push(this.view(type, entry.object));
    }
    return found.sort((a, b) => compareKeys(a, b));
  }

  all(): StoredObject[] {
    return [...this.entries.values()].map((e) => structuredClone(e.object) as unknown as StoredObject).sort(compareKeys);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Server-side apply of `body` by `manager`; throws StatusError as the real server would answer. */
  apply(type: ResourceType, namespace: string | undefined, name: string, body: JsonObject, manager: string, force: boolean): { object: StoredObject; created: boolean } {
    this.checkBody(type, namespace, name, body);
    const key = keyOf(type, namespace, name);
    const existing = this.entries.get(key);
    const wantedVersion = metadataOf(body).resourceVersion;
    if (existing && typeof wantedVersion === "string" && wantedVersion !== metadataOf(existing.object).resourceVersion) {
      throw new StatusError(409, `Operation cannot be fulfilled on ${type.plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`, "Conflict", { name, group: type.group, kind: type.plural });
    }

    const config = configOf(body);
    const managers = new Map(existing?.managers ?? []);
    const live: JsonObject = existing ? structuredClone(existing.object) : { metadata: type.namespaced ? { name, namespace: namespace! } : { name } };
    const others = new Map([...managers].filter(([m]) => m !== manager).map(([m, a]) => [m, a.config]));

    const conflicts = findConflicts(live, config, others);
    if (conflicts.length > 0 && !force) {
      const list = conflicts.map((c) => `conflict with "${c.manager}": ${formatPath(c.path)}`).join(", ");
      throw new StatusError(409, `Apply failed with ${conflicts.length} conflict${conflicts.length > 1 ? "s" : ""}: ${list}`, "Conflict", {
        name,
        group: type.group,
        kind: type.plural,
        causes: conflicts.map((c) => ({ reason: "FieldManagerConflict", message: `conflict with "${c.manager}"`, field: formatPath(c.path) })),
      });
    }
    // A forced apply takes the conflicting fields over: their former manager no longer owns them.
    for (const c of conflicts) {
      const theirs = managers.get(c.manager)!;
      managers.set(c.manager, { ...theirs, config: withoutPaths(theirs.config, [c.path]) });
    }

    const claimedByOthers = (path: FieldPath, value: Json) => [...others.keys()].some((m) => deepEqual(valueAt(managers.get(m)!.config, path), value));
    const merged = mergeApplied(live, config, managers.get(manager)?.config, claimedByOthers);
    const previous = managers.get(manager);
    const apiVersion = apiVersionOf(type);
    managers.set(manager, previous && deepEqual(previous.config, config) && previous.apiVersion === apiVersion ? previous : { config, apiVersion, time: now() });

    const object = this.commit(type, existing, merged, managers);
    return { object, created: !existing };
  }

  /** POST: creates, or 409 AlreadyExists. */
  create(type: ResourceType, namespace: string | undefined, body: JsonObject): StoredObject {
    const name = metadataOf(body).name;
    if (typeof name !== "string" || name === "") throw new StatusError(422, `${type.kind} "" is invalid: metadata.name: Required value: name or generateName is required`, "Invalid");
    this.checkBody(type, namespace, name, body);
    const existing = this.entries.get(keyOf(type, namespace, name));
    if (existing) throw new StatusError(409, `${type.plural}${type.group ? `.${type.group}` : ""} "${name}" already exists`, "AlreadyExists", { name, group: type.group, kind: type.plural });
    const config = configOf(body);
    if (type.namespaced) (config.metadata as JsonObject).namespace = namespace!;
    return this.commit(type, undefined, config, new Map());
  }

  /** Stores an object as given (seeding, or drift made behind the portal's back); keeps uid and what managers applied. */
  put(body: JsonObject): StoredObject {
    const type = this.typeOf(show(body.apiVersion), show(body.kind));
    const metadata = metadataOf(body);
    if (!type) throw new Error(`the stand-in does not serve ${show(body.apiVersion)} ${show(body.kind)}`);
    if (typeof metadata.name !== "string" || !metadata.name) throw new Error("put: metadata.name is required");
    if (type.namespaced && typeof metadata.namespace !== "string") throw new Error(`put: ${type.kind} is namespaced; metadata.namespace is required`);
    const namespace = type.namespaced ? (metadata.namespace as string) : undefined;
    const existing = this.entries.get(keyOf(type, namespace, metadata.name));
    const next = configOf(body);
    if (existing) {
      // Keep the identity the server gave the object; the rest is as the caller says.
      const kept = metadataOf(existing.object);
      Object.assign(next.metadata as JsonObject, { uid: kept.uid!, creationTimestamp: kept.creationTimestamp!, generation: kept.generation!, resourceVersion: kept.resourceVersion! });
      if (isObject(existing.object.status) && next.status === undefined && body.status === undefined) next.status = existing.object.status;
    }
    if (body.status !== undefined) next.status = body.status;
    return this.commit(type, existing, next, existing?.managers ?? new Map<string, AppliedConfig>());
  }

  /** Deletes one object (a Namespace with everything in it); false when it was absent. */
  remove(type: ResourceType, namespace: string | undefined, name: string): StoredObject | undefined {
    const key = keyOf(type, type.namespaced ? namespace : undefined, name);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (type.group === "" && type.kind === "Namespace") {
      for (const [k, e] of this.entries) if (metadataOf(e.object).namespace === name) this.entries.delete(k);
    }
    this.revision += 1;
    return this.view(type, entry.object);
  }

  private checkBody(type: ResourceType, namespace: string | undefined, name: string, body: JsonObject): void {
    const apiVersion = apiVersionOf(type);
    if (body.apiVersion !== apiVersion) throw new StatusError(400, `the API version in the data (${show(body.apiVersion)}) does not match the expected API version (${apiVersion})`);
    if (body.kind !== type.kind) throw new StatusError(400, `the kind in the data (${show(body.kind)}) does not match the expected kind (${type.kind})`);
    const metadata = metadataOf(body);
    if (metadata.name !== undefined && metadata.name !== name) throw new StatusError(400, `the name of the object (${show(metadata.name)}) does not match the name on the URL (${name})`);
    if (type.namespaced && metadata.namespace !== undefined && metadata.namespace !== namespace) {
      throw new StatusError(400, "the namespace of the provided object does not match the namespace sent on the request");
    }
    if (type.namespaced && !this.namespaceExists(namespace!)) throw notFound("namespaces", namespace!);
  }

  /** Stores `next` with the server-owned fields; an unchanged object keeps its resourceVersion. */
  private commit(type: ResourceType, existing: Entry | undefined, next: JsonObject, managers: Map<string, AppliedConfig>): StoredObject {
    const object: JsonObject = { apiVersion: apiVersionOf(type), kind: type.kind, ...next };
    object.apiVersion = apiVersionOf(type);
    object.kind = type.kind;
    const metadata: JsonObject = { ...metadataOf(object) };
    object.metadata = metadata;
    if (!type.namespaced) delete metadata.namespace;
    const name = show(metadata.name);
    if (type.group === "" && type.kind === "Namespace") {
      // The real server labels every namespace with its name and starts it Active.
      metadata.labels = { ...(isObject(metadata.labels) ? metadata.labels : {}), "kubernetes.io/metadata.name": name };
      if (!isObject(object.spec)) object.spec = { finalizers: ["kubernetes"] };
      if (!isObject(object.status)) object.status = { phase: "Active" };
    }
    const entries: ManagedFieldsEntry[] = [...managers].map(([manager, a]) => ({ manager, operation: "Apply", apiVersion: a.apiVersion, time: a.time, fieldsType: "FieldsV1", fieldsV1: fieldsV1(a.config) }));
    if (entries.length > 0) metadata.managedFields = entries as unknown as Json;
    else delete metadata.managedFields;

    const key = keyOf(type, type.namespaced ? (metadata.namespace as string) : undefined, name);
    if (existing) {
      const before = existing.object;
      const sameVersion = before.apiVersion === object.apiVersion;
      metadata.uid = metadataOf(before).uid!;
      metadata.creationTimestamp = metadataOf(before).creationTimestamp!;
      metadata.generation = metadataOf(before).generation!;
      metadata.resourceVersion = metadataOf(before).resourceVersion!;
      if (sameVersion && deepEqual(withoutResourceVersion(before), withoutResourceVersion(object))) {
        existing.managers = managers;
        return this.view(type, before);
      }
      if (!deepEqual(specOf(before), specOf(object))) metadata.generation = Number(metadata.generation) + 1;
    } else {
      metadata.uid = randomUUID();
      metadata.creationTimestamp = now();
      metadata.generation = 1;
    }
    this.revision += 1;
    metadata.resourceVersion = String(this.revision);
    this.entries.set(key, { object, managers });
    return this.view(type, object);
  }

  /** A copy as served for `type` (its apiVersion). */
  private view(type: ResourceType, object: JsonObject): StoredObject {
    const copy = structuredClone(object) as unknown as StoredObject;
    copy.apiVersion = apiVersionOf(type);
    return copy;
  }
}

export function compareKeys(a: StoredObject, b: StoredObject): number {
  const ka = `${a.metadata.namespace ?? ""}/${a.metadata.name}`;
  const kb = `${b.metadata.namespace ?? ""}/${b.metadata.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
