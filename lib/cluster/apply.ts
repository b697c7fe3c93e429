import type { KubernetesObject } from "@kubernetes/client-node";
import { toClusterApiError, UNKNOWN_KIND, type ClusterApiError, type ClusterClient, type KubeObject, type ObjectRef } from "./kube-client";
import { parseLabelSelector } from "./label-selector";
import type { ClusterObject } from "./render-project";
import { identityOf, refOf, type OwnedScope } from "./targets";

/** A call about one object failed: which object, and the API server's answer. */
export class ObjectApplyError extends Error {
  constructor(
    readonly ref: ObjectRef,
    readonly apiError: ClusterApiError,
  ) {
    super(`${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ""}${ref.name}: ${apiError.message}`);
    this.name = "ObjectApplyError";
  }
}

/** A 409 is another writer's update racing ours; applying again on the fresh object settles it. */
const CONFLICT_REAPPLIES = 3;

async function applyOne(client: ClusterClient, object: ClusterObject): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.apply(object as KubernetesObject);
      return;
    } catch (error) {
      const e = toClusterApiError(error);
      if (!e.conflict || attempt > CONFLICT_REAPPLIES) throw new ObjectApplyError(refOf(object), e);
    }
  }
}

/** A kind the cluster does not serve (Kueue not installed) lists as nothing. */
async function listServed(client: ClusterClient, apiVersion: string, kind: string, options: { namespace?: string; labelSelector: string }): Promise<KubeObject[]> {
  try {
    return await client.list(apiVersion, kind, options);
  } catch (error) {
    const e = toClusterApiError(error);
    if (e.status === 404 || e.reason === UNKNOWN_KIND) return [];
    throw e;
  }
}

/**
 * Whether the portal may prune this object: it carries the target's labels
 * (the list's selector said so), and, when the server reports who manages
 * its fields, the portal's field manager is among them. An object that
 * someone else created or took over whole, with our labels copied onto it,
 * is theirs and is left alone.
 */
function prunable(item: KubeObject, fieldManager: string | undefined): boolean {
  const managed = item.metadata.managedFields;
  if (!fieldManager || !Array.isArray(managed) || managed.length === 0) return true;
  return managed.some((m) => typeof m === "object" && m !== null && (m as { manager?: unknown }).manager === fieldManager);
}

/** The owned objects in scope on the cluster, by identity, one LIST per kind. */
export async function listOwned(client: ClusterClient, scope: OwnedScope): Promise<ObjectRef[]> {
  const found: ObjectRef[] = [];
  for (const { apiVersion, kind } of scope.kinds) {
    for (const item of await listServed(client, apiVersion, kind, { namespace: scope.namespace, labelSelector: scope.labelSelector })) {
      if (prunable(item, client.fieldManager)) found.push(refOf({ ...item, apiVersion, kind }));
    }
  }
  return found;
}

/**
 * What to prune, for many targets with one LIST per kind instead of one per
 * kind and target. A scope that names a `sharedSelector` (what every target
 * of the portal's owner label has in common) is answered from one
 * cluster-wide LIST of each kind with that selector, taken the first time
 * any target asks for the kind, and filtered here by the target's namespace
 * and its own full selector, parsed by the same rules as the API server's.
 * The portal's objects are written only by the worker holding their target's
 * claim, so objects a target no longer desires are in a listing taken before
 * that target's prune; the objects it has just applied are desired anyway.
 * A target asking a second time (a second change of it in the same batch) is
 * listed afresh, as is a scope without a shared selector. One listing lives
 * for one batch of changes (reconcileDue), never longer.
 */
export class OwnedListing {
  private readonly byKind = new Map<string, Promise<KubeObject[]>>();
  private readonly answered = new Set<string>();

  constructor(private readonly client: ClusterClient) {}

  async owned(scope: OwnedScope): Promise<ObjectRef[]> {
    const scopeKey = `${scope.namespace ?? ""}|${scope.labelSelector}`;
    const shared = scope.sharedSelector;
    if (shared === undefined || this.answered.has(scopeKey)) return listOwned(this.client, scope);
    this.answered.add(scopeKey);
    const matches = parseLabelSelector(scope.labelSelector);
    const found: ObjectRef[] = [];
    for (const { apiVersion, kind } of scope.kinds) {
      const key = `${apiVersion}|${kind}|${shared}`;
      let listed = this.byKind.get(key);
      if (!listed) {
        listed = listServed(this.client, apiVersion, kind, { labelSelector: shared });
        this.byKind.set(key, listed);
        // A failed LIST is not kept: the next target asks again.
        listed.catch(() => this.byKind.delete(key)); // handled: the caller awaits `listed` itself
      }
      for (const item of await listed) {
        if (scope.namespace !== undefined && item.metadata.namespace !== scope.namespace) continue;
        if (!matches(item.metadata.labels) || !prunable(item, this.client.fieldManager)) continue;
        found.push(refOf({ ...item, apiVersion, kind }));
      }
    }
    return found;
  }
}

/**
 * Make the cluster hold exactly the desired objects of one target: apply each
 * in order (server-side apply: idempotent, so a repeat changes nothing), then
 * delete owned objects in scope that are no longer desired (found through
 * `listing`, shared by a batch of changes, when given). Throws a
 * ClusterApiError on the first failure; the caller decides whether to retry,
 * and a retry starts over safely.
 */
export async function applyTarget(client: ClusterClient, objects: readonly ClusterObject[], scope: OwnedScope, listing?: OwnedListing): Promise<ObjectRef[]> {
  for (const object of objects) await applyOne(client, object);
  const desired = new Set(objects.map((o) => identityOf(refOf(o))));
  const owned = listing ? await listing.owned(scope) : await listOwned(client, scope);
  const stale = owned.filter((r) => !desired.has(identityOf(r)));
  for (const ref of stale) {
    try {
      await client.remove(ref);
    } catch (error) {
      throw new ObjectApplyError(ref, toClusterApiError(error));
    }
  }
  return stale;
}
