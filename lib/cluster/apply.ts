import type { KubernetesObject } from "@kubernetes/client-node";
import { toClusterApiError, UNKNOWN_KIND, type ClusterApiError, type ClusterClient, type ObjectRef } from "./kube-client";
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

/** The owned objects in scope on the cluster, by identity. A kind the cluster does not serve (Kueue not installed) has none. */
export async function listOwned(client: ClusterClient, scope: OwnedScope): Promise<ObjectRef[]> {
  const found: ObjectRef[] = [];
  for (const { apiVersion, kind } of scope.kinds) {
    try {
      const items = await client.list(apiVersion, kind, { namespace: scope.namespace, labelSelector: scope.labelSelector });
      for (const item of items) found.push(refOf({ ...item, apiVersion, kind }));
    } catch (error) {
      const e = toClusterApiError(error);
      if (e.status === 404 || e.reason === UNKNOWN_KIND) continue;
      throw e;
    }
  }
  return found;
}

/**
 * Make the cluster hold exactly the desired objects of one target: apply each
 * in order (server-side apply: idempotent, so a repeat changes nothing), then
 * delete owned objects in scope that are no longer desired. Throws a
 * ClusterApiError on the first failure; the caller decides whether to retry,
 * and a retry starts over safely.
 */
export async function applyTarget(client: ClusterClient, objects: readonly ClusterObject[], scope: OwnedScope): Promise<ObjectRef[]> {
  for (const object of objects) await applyOne(client, object);
  const desired = new Set(objects.map((o) => identityOf(refOf(o))));
  const stale = (await listOwned(client, scope)).filter((r) => !desired.has(identityOf(r)));
  for (const ref of stale) {
    try {
      await client.remove(ref);
    } catch (error) {
      throw new ObjectApplyError(ref, toClusterApiError(error));
    }
  }
  return stale;
}
