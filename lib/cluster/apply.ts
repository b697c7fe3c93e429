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
 * listed afresh, as is a scope without a shared selector. An object another
 * target of the batch writes (an object moving between targets, such as a
 * Kueue ResourceFlavor once named per tenant and now the platform's) is
 * that target's from then on: the listing, taken before, still shows it with
 * its old labels, so no other target prunes it from there. One listing lives
 * for one batch of changes (reconcileDue), never longer.
 */
export class OwnedListing {
  private readonly byKind = new Map<string, Promise<KubeObject[]>>();
  private readonly answered = new Set<string>();
  /** Objects a target of the batch writes, by identity. */
  private readonly writes = new Set<string>();
  /** What this batch did since its listing: applied (the object) or deleted (null), by identity. */
  private readonly since = new Map<string, ClusterObject | null>();

  constructor(private readonly client: ClusterClient) {}

  /** A target is about to write these objects (called before the first of them is sent). */
  writing(objects: readonly ClusterObject[]): void {
    for (const o of objects) this.writes.add(identityOf(refOf(o)));
  }

  applied(object: ClusterObject): void {
    this.since.set(identityOf(refOf(object)), object);
  }

  removed(ref: ObjectRef): void {
    this.since.set(identityOf(ref), null);
  }

  /** What a target may prune: its owned objects in scope, from the batch's listing (the first time it asks) or listed afresh. */
  async owned(scope: OwnedScope): Promise<ObjectRef[]> {
    const scopeKey = `${scope.namespace ?? ""}|${scope.labelSelector}`;
    if (scope.sharedSelector === undefined || this.answered.has(scopeKey)) return listOwned(this.client, scope);
    this.answered.add(scopeKey);
    return (await this.fromShared(scope, scope.sharedSelector)).filter((r) => !this.writes.has(identityOf(r)));
  }

  /**
   * The objects in scope now, as far as the portal knows without listing
   * again: the batch's listing, with what the batch has applied and deleted
   * since. Not counted as the scope's own prune. How one target sees what
   * another owns (a tenant's queues, the platform's flavours they name).
   */
  async seen(scope: OwnedScope): Promise<ObjectRef[]> {
    if (scope.sharedSelector === undefined) return listOwned(this.client, scope);
    const matches = parseLabelSelector(scope.labelSelector);
    const inScope = (o: ClusterObject) =>
      scope.kinds.some((k) => k.apiVersion === o.apiVersion && k.kind === o.kind) && (scope.namespace === undefined || o.metadata?.namespace === scope.namespace) && matches(o.metadata?.labels ?? undefined);
    const found = new Map((await this.fromShared(scope, scope.sharedSelector)).map((r) => [identityOf(r), r]));
    for (const [identity, object] of this.since) {
      if (object && inScope(object)) found.set(identity, refOf(object));
      else found.delete(identity);
    }
    return [...found.values()];
  }

  private async fromShared(scope: OwnedScope, shared: string): Promise<ObjectRef[]> {
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

/** How a target's prune is done: from a batch's shared listing, and with a hook that may refuse it. */
export interface PruneOptions {
  listing?: OwnedListing;
  /** Sees what is about to be deleted; throws to refuse (the change is retried). */
  beforePrune?: (stale: readonly ObjectRef[]) => Promise<void>;
}

/**
 * Make the cluster hold exactly the desired objects of one target: apply each
 * in order (server-side apply: idempotent, so a repeat changes nothing), then
 * delete owned objects in scope that are no longer desired (found through
 * `listing`, shared by a batch of changes, when given; after `beforePrune`,
 * which may refuse by throwing). Throws a ClusterApiError on the first
 * failure; the caller decides whether to retry, and a retry starts over safely.
 */
export async function applyTarget(client: ClusterClient, objects: readonly ClusterObject[], scope: OwnedScope, options: PruneOptions = {}): Promise<ObjectRef[]> {
  const { listing, beforePrune } = options;
  listing?.writing(objects);
  for (const object of objects) {
    await applyOne(client, object);
    listing?.applied(object);
  }
  const desired = new Set(objects.map((o) => identityOf(refOf(o))));
  const owned = listing ? await listing.owned(scope) : await listOwned(client, scope);
  const stale = owned.filter((r) => !desired.has(identityOf(r)));
  // A target may refuse to delete what others still depend on (the platform's flavours): it throws, and the change is retried.
  if (beforePrune) await beforePrune(stale);
  for (const ref of stale) {
    try {
      await client.remove(ref);
      listing?.removed(ref);
    } catch (error) {
      throw new ObjectApplyError(ref, toClusterApiError(error));
    }
  }
  return stale;
}
