import { and, asc, eq, gt, gte, inArray, isNull, like, lt, lte, ne, or, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { clusterChangeAttempts, clusterChanges, clusterObjects } from "@/db/schema";
import type { Clock } from "@/lib/clock";
import type { ClusterSettings } from "@/lib/config";
import { log, withLogContext } from "@/lib/observability/log";
import { metrics } from "@/lib/observability/metrics";
import { applyTarget, listOwned, ObjectApplyError, OwnedListing } from "./apply";
import { loadDesiredPlatform, loadDesiredTenant } from "./desired-from-db";
import { loadPoolFacts, type PoolFacts } from "@/lib/quota/pool-flavors";
import { ClusterApiError, toClusterApiError, type ClusterClient } from "./kube-client";
import type { RenderConfig } from "./desired-state";
import type { ClusterQueue } from "./kueue";
import { enqueuePlatformFlavorsChange } from "./outbox";
import { PLATFORM_FLAVORS_TARGET } from "./target-keys";
import type { ClusterObject } from "./render-project";
import { scheduleBoundaries } from "./schedule";
import { kueueChoiceFor, withKueueChoice } from "./kueue-discovery";
import { identityOf, ownedScope, platformTargetOf, refOf, renderTarget, targetOf, type ObjectRef, type Target } from "./targets";
import { InvalidObjectError } from "./validate";

/**
 * Called in the transaction that records a change's outcome, when it was
 * applied or finally failed (live mode): how other capabilities follow the
 * cluster without lib/cluster knowing them (quota requests become "applied",
 * lib/quota/follow.ts). The worker loop passes lib/jobs' CHANGE_SETTLED_HOOKS.
 */
export type ChangeSettledHook = (
  tx: Database,
  change: { projectId: string | null; claimedAt: Date },
  outcome: { status: "applied" } | { status: "failed"; error: string },
  at: Date,
) => Promise<void>;

export interface ReconcilerOptions {
  db: Database;
  settings: ClusterSettings;
  /** null: record-only mode, nothing is sent anywhere. */
  client: ClusterClient | null;
  clock: Clock;
  /** Names this worker in claims and attempts (host and pid in production). */
  workerId: string;
  /**
   * How long a claim holds before another worker may take the change over (a
   * crashed worker's). Short, because a live worker renews it by heartbeat while
   * it works (every third of the lease): a dead replica's changes are taken over
   * within this time, not minutes later.
   */
  leaseMs?: number;
  /** Aborted when the process stops: no new claims, and changes claimed but not started are handed back at once. */
  signal?: AbortSignal;
  /** Backoff after the first failure; doubles per attempt up to maxBackoffMs. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Run after each applied or failed change, in its transaction. */
  afterSettled?: readonly ChangeSettledHook[];
  /** Changes taken per claim. */
  batchSize?: number;
  /** Changes applied at once by this worker. */
  concurrency?: number;
  random?: () => number;
}

type Change = typeof clusterChanges.$inferSelect;
/** `reason` of a retry or failure: the API's Status reason, ours (Timeout, ConnectionRefused, ...), InvalidObject, or http_<code>. */
type Outcome = { status: "applied" } | { status: "recorded" } | { status: "retry"; error: string; reason: string; delayMs: number } | { status: "failed"; error: string; reason: string };

/** ALLOT_CLUSTER_LEASE_SECONDS' default. */
export const DEFAULT_LEASE_MS = 30_000;

/** The claim lease: the caller's, else the configured one (ALLOT_CLUSTER_LEASE_SECONDS). */
const leaseOf = (o: ReconcilerOptions) => o.leaseMs ?? o.settings.leaseMs;

/**
 * Take due changes, oldest first, with FOR UPDATE SKIP LOCKED so any number of
 * workers (one per replica, or the CLI) share the queue without taking the same
 * change twice. A change whose claim lapsed (its worker died mid-apply) is due
 * again. One target is worked on by one worker at a time: a target with a live
 * claim is skipped, and an abandoned older change is superseded by a newer one.
 */
export async function claimDueChanges(o: ReconcilerOptions): Promise<Change[]> {
  const now = o.clock();
  const leaseMs = leaseOf(o);
  const limit = o.batchSize ?? 20;
  return o.db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(clusterChanges)
      .where(
        or(
          and(eq(clusterChanges.status, "pending"), lte(clusterChanges.nextAttemptAt, now)),
          and(eq(clusterChanges.status, "applying"), lt(clusterChanges.claimedUntil, now)),
        ),
      )
      .orderBy(asc(clusterChanges.id))
      .limit(limit * 2)
      .for("update", { skipLocked: true });
    if (due.length === 0) return [];

    const busy = new Set(
      (
        await tx
          .select({ targetKey: clusterChanges.targetKey })
          .from(clusterChanges)
          .where(
            and(
              eq(clusterChanges.status, "applying"),
              gte(clusterChanges.claimedUntil, now),
              inArray(
                clusterChanges.targetKey,
                due.map((c) => c.targetKey),
              ),
            ),
          )
      ).map((r) => r.targetKey),
    );
    const newestPerTarget = new Map<string, Change>();
    const superseded: number[] = [];
    for (const c of due) {
      if (busy.has(c.targetKey)) continue;
      const seen = newestPerTarget.get(c.targetKey);
      if (seen) superseded.push(seen.id);
      newestPerTarget.set(c.targetKey, c);
    }
    if (superseded.length > 0) {
      await tx.update(clusterChanges).set({ status: "superseded", claimedBy: null, claimedUntil: null, finishedAt: now, updatedAt: now }).where(inArray(clusterChanges.id, superseded));
    }
    const chosen = [...newestPerTarget.values()].sort((a, b) => a.id - b.id).slice(0, limit);
    if (chosen.length === 0) return [];
    const claimed = await tx
      .update(clusterChanges)
      .set({
        status: "applying",
        claimedBy: o.workerId,
        claimedUntil: new Date(now.getTime() + leaseMs),
        attempts: sql`${clusterChanges.attempts} + 1`,
        mode: o.client ? "live" : "record-only",
        updatedAt: now,
      })
      .where(
        inArray(
          clusterChanges.id,
          chosen.map((c) => c.id),
        ),
      )
      .returning();
    // In the order they were queued: UPDATE … RETURNING gives rows in whatever order PostgreSQL
    // updated them, and a tenant's change queued after the platform's flavours must see them applied.
    return claimed.sort((a, b) => a.id - b.id);
  });
}

/** Exponential backoff with jitter (half fixed, half random), never sooner than the server asked. */
export function backoffMs(attempt: number, o: Pick<ReconcilerOptions, "baseBackoffMs" | "maxBackoffMs" | "random">, retryAfterMs?: number): number {
  const base = o.baseBackoffMs ?? 1000;
  const cap = o.maxBackoffMs ?? 5 * 60_000;
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  const jittered = ceiling / 2 + (o.random ?? Math.random)() * (ceiling / 2);
  return Math.round(Math.max(jittered, retryAfterMs ?? 0));
}

/** The recorded objects of a change's target: a project's, a tenant's cluster-scoped ones, or the platform's (no tenant). */
const rowsOfTarget = (change: Change) =>
  and(change.tenantId ? eq(clusterObjects.tenantId, change.tenantId) : isNull(clusterObjects.tenantId), change.projectId ? eq(clusterObjects.projectId, change.projectId) : isNull(clusterObjects.projectId));

/**
 * Upsert the target's objects with a status, in one statement whatever their number: the rows
 * travel as one JSON parameter unpacked by jsonb_to_recordset, rather than a VALUES list of a
 * dozen parameters per object, which drizzle builds and postgres.js encodes one by one (the
 * largest share of the worker's own CPU per change). "applying" keeps the drift found before;
 * only "applied" sets appliedAt.
 */
async function upsertObjects(db: Database, change: Change, objects: readonly ClusterObject[], status: "planned" | "applying" | "applied", now: Date): Promise<void> {
  if (objects.length === 0) return;
  const rows = objects.map((o) => {
    const ref = refOf(o);
    return { api_version: ref.apiVersion, kind: ref.kind, namespace: ref.namespace ?? "", name: ref.name, manifest: o };
  });
  const at = now.toISOString();
  await db.execute(sql`
    insert into ${clusterObjects} (tenant_id, project_id, api_version, kind, namespace, name, manifest, status, last_change_id, error, drift, applied_at, updated_at)
    select ${change.tenantId}::uuid, ${change.projectId}::uuid, r.api_version, r.kind, r.namespace, r.name, r.manifest, ${status}::cluster_object_status, ${change.id}::bigint, null, null,
      ${status === "applied" ? at : null}::timestamptz, ${at}::timestamptz
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(api_version text, kind text, namespace text, name text, manifest jsonb)
    on conflict (kind, namespace, name) do update set
      tenant_id = excluded.tenant_id, project_id = excluded.project_id, api_version = excluded.api_version, manifest = excluded.manifest,
      status = excluded.status, last_change_id = excluded.last_change_id, error = null,
      drift = ${status === "applying" ? sql`${clusterObjects}.drift` : sql`null`},
      applied_at = ${status === "applied" ? sql`excluded.applied_at` : sql`${clusterObjects}.applied_at`},
      updated_at = excluded.updated_at`);
}

/**
 * Forget the target's rows that the change no longer desires, once its objects are upserted
 * (before the apply in live mode, in the same transaction in record-only mode): every desired
 * object then carries this change's id (the upsert set it, moving an object from another target
 * too), so the target's rows with any other id are exactly the undesired ones. One statement, no
 * read first.
 */
async function forgetUndesiredObjects(db: Database, change: Change): Promise<void> {
  await db.delete(clusterObjects).where(and(rowsOfTarget(change), or(isNull(clusterObjects.lastChangeId), ne(clusterObjects.lastChangeId, change.id))));
}

/** Objects recorded for the target that the new render no longer has: what record-only mode says would be deleted. */
async function recordedButUndesired(db: Database, change: Change, objects: readonly ClusterObject[]): Promise<ObjectRef[]> {
  const desired = new Set(objects.map((o) => identityOf(refOf(o))));
  const rows = await db
    .select({ apiVersion: clusterObjects.apiVersion, kind: clusterObjects.kind, namespace: clusterObjects.namespace, name: clusterObjects.name })
    .from(clusterObjects)
    .where(rowsOfTarget(change));
  return rows.filter((r) => !desired.has(identityOf(r))).map((r) => refOf({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.name, namespace: r.namespace || undefined } }));
}

/**
 * What the changes of one batch (one claim) share, each read once for the batch: the prune
 * listing (live mode) and the node pools' facts. Both are read after the claim, so a change
 * queued by a later write (a pool added) is in a later batch, which reads afresh.
 */
export interface Batch {
  listing?: OwnedListing;
  pools?: () => Promise<PoolFacts>;
}

/** The node pools' facts, read the first time a change of the batch asks (a failed read is not kept: the next change reads again). */
function poolsOnce(db: Database): () => Promise<PoolFacts> {
  let read: Promise<PoolFacts> | undefined;
  return () => {
    read ??= loadPoolFacts(db);
    read.catch(() => (read = undefined)); // handled: the caller awaits the same promise
    return read;
  };
}

async function loadTarget(o: ReconcilerOptions, change: Change, now: Date, batch: Batch): Promise<Target | null> {
  const pools = batch.pools ? await batch.pools() : undefined;
  if (change.tenantId === null) return change.targetKey === PLATFORM_FLAVORS_TARGET ? platformTargetOf(await loadDesiredPlatform(o.db, o.settings, pools)) : null;
  // A project's change reads that project alone, not every project of its tenant.
  const loaded = await loadDesiredTenant(o.db, change.tenantId, o.settings, now, { projectId: change.projectId ?? undefined, pools });
  return loaded ? targetOf(loaded, change.projectId) : null;
}

/** The reason of a tenant change waiting for the platform's flavours (it is woken by it). */
const FLAVORS_NOT_READY = "FlavorsNotReady";
/** How such a change's error begins: it woke changes written before migration 0025 recorded the reason, by this text. */
const WAITING_FOR_FLAVORS = "Waiting for the platform's ResourceFlavors";

/**
 * Once the platform's flavours are applied, the tenant changes that waited for them are due at once
 * rather than after their backoff: on a fresh cluster the tenants' queues follow their flavours in
 * the same pass of the worker, not seconds later.
 */
async function wakeChangesWaitingForFlavors(db: Database, now: Date): Promise<void> {
  await db
    .update(clusterChanges)
    .set({ nextAttemptAt: now })
    .where(
      and(
        eq(clusterChanges.status, "pending"),
        gt(clusterChanges.nextAttemptAt, now),
        or(eq(clusterChanges.lastErrorReason, FLAVORS_NOT_READY), and(isNull(clusterChanges.lastErrorReason), like(clusterChanges.lastError, `${WAITING_FOR_FLAVORS}%`))),
      ),
    );
}

/** Applies (or records) one claimed change; every line logged meanwhile names it, and one line says how it ended. */
export function processChange(o: ReconcilerOptions, change: Change, batch: Batch = {}): Promise<Outcome> {
  return withLogContext({ changeId: change.id }, async () => {
    const startedAt = performance.now();
    const outcome = await applyOrRecord(o, change, batch);
    if (outcome.status === "applied" && change.targetKey === PLATFORM_FLAVORS_TARGET) await wakeChangesWaitingForFlavors(o.db, o.clock());
    const fields = { target: change.targetKey, attempt: change.attempts, durationMs: Math.round(performance.now() - startedAt) };
    if (outcome.status === "applied" || outcome.status === "recorded") log().info(fields, `change ${outcome.status}`);
    else if (outcome.status === "retry") log().warn({ ...fields, reason: outcome.reason, error: outcome.error, retryInMs: outcome.delayMs }, "change not applied; trying again");
    else log().error({ ...fields, reason: outcome.reason, error: outcome.error }, "change failed");
    return outcome;
  });
}

async function applyOrRecord(o: ReconcilerOptions, change: Change, batch: Batch): Promise<Outcome> {
  const { listing } = batch;
  const startedAt = o.clock();
  // Written while the desired state is read (both wait on the database, neither needs the other); awaited before the outcome is recorded.
  const attemptWritten = o.db
    .insert(clusterChangeAttempts)
    .values({ changeId: change.id, attempt: change.attempts, worker: o.workerId, startedAt })
    .returning({ id: clusterChangeAttempts.id })
    .then(([row]) => row!.id);
  attemptWritten.catch(() => undefined); // handled: awaited below, whatever happens meanwhile

  let outcome: Outcome;
  let objects: ClusterObject[] = [];
  let deletions: ObjectRef[] = [];
  let target: Target | null = null;
  try {
    target = await loadTarget(o, change, startedAt, batch);
    if (!target) throw new InvalidObjectError("target", change.targetKey, "its tenant or project no longer exists");
    // Live: render the Kueue version (and Cohort objects) the cluster serves; record-only: as set.
    const render = o.client ? withKueueChoice(o.settings.render, await kueueChoiceFor(o.client, o.settings.render, startedAt.getTime(), (message) => log().info(message))) : o.settings.render;
    objects = await renderTarget(target, render);
    if (target.kind === "tenant") await awaitPlatformFlavors(o, target, objects, render, startedAt, listing);
    // The objects are recorded as planned or applied (and the undesired ones forgotten) in finishChange's transaction.
    if (!o.client) {
      deletions = await recordedButUndesired(o.db, change, objects);
      outcome = { status: "recorded" };
    } else {
      // Recorded as being applied first, so a failure marks each of them, and the cluster page shows them meanwhile.
      await upsertObjects(o.db, change, objects, "applying", o.clock());
      const client = o.client;
      const beforePrune = target.kind === "platform" ? (stale: readonly ObjectRef[]) => refuseNamedFlavors(client, stale, render) : undefined;
      deletions = await applyTarget(client, objects, ownedScope(target, render), { listing, beforePrune });
      outcome = { status: "applied" };
    }
  } catch (error) {
    outcome = failureOutcome(o, change, error);
  }

  const finished = await finishChange(o, change, await attemptWritten, outcome, objects, deletions, target);
  metrics().applyAttempts.inc({ mode: o.client ? "live" : "record-only", outcome: finished.status });
  if (finished.status === "retry" || finished.status === "failed") metrics().applyFailures.inc({ reason: finished.reason });
  return finished;
}

/**
 * Records how the attempt ended, in one transaction: the attempt, the change (only while this
 * worker holds it), its objects (recorded as applied or planned, the undesired ones forgotten;
 * or marked failed), what follows the cluster, and the grants' scheduled boundaries. Those
 * statements do not depend on each other (each chain below keeps its own order), so they are
 * sent together: on PostgreSQL postgres.js pipelines them on the transaction's connection, so
 * finishing costs about as many round trips as its longest chain rather than one per statement.
 */
async function finishChange(o: ReconcilerOptions, change: Change, attemptId: number, outcome: Outcome, objects: ClusterObject[], deletions: ObjectRef[], target: Target | null): Promise<Outcome> {
  const now = o.clock();
  const settled = outcome.status === "applied" || outcome.status === "recorded";
  await o.db.transaction(async (tx) => {
    const steps: Promise<unknown>[] = [
      tx
        .update(clusterChangeAttempts)
        .set({ finishedAt: now, outcome: outcome.status, error: "error" in outcome ? outcome.error : null })
        .where(eq(clusterChangeAttempts.id, attemptId)),
      settleChange(o, tx, change, outcome, objects, deletions, now),
    ];
    // Live mode recorded the objects (manifests included) as applying before sending them: they
    // need only their status now, not their manifests written again.
    const ours = and(rowsOfTarget(change), eq(clusterObjects.lastChangeId, change.id));
    if (outcome.status === "applied") {
      steps.push(
        (async () => {
          if (objects.length > 0) await tx.update(clusterObjects).set({ status: "applied", error: null, drift: null, appliedAt: now, updatedAt: now }).where(ours);
          await forgetUndesiredObjects(tx, change);
        })(),
      );
    } else if (outcome.status === "recorded") {
      steps.push(
        (async () => {
          await upsertObjects(tx, change, objects, "planned", now);
          await forgetUndesiredObjects(tx, change);
        })(),
      );
    } else if (objects.length > 0) {
      steps.push(
        tx
          .update(clusterObjects)
          .set({ status: outcome.status === "failed" ? "failed" : "applying", error: outcome.error, updatedAt: now })
          .where(ours),
      );
    }
    // What follows the cluster (quota requests approved before this change was taken) hears of it (live mode only).
    if (outcome.status === "applied" || outcome.status === "failed") {
      const heard = outcome.status === "applied" ? ({ status: "applied" } as const) : ({ status: "failed", error: outcome.error } as const);
      steps.push(
        (async () => {
          for (const hook of o.afterSettled ?? []) await hook(tx, { projectId: change.projectId, claimedAt: change.updatedAt }, heard, now);
        })(),
      );
    }
    // The commands that write grants schedule their boundaries; this repeats it
    // (idempotently, in this transaction) for grants written before scheduling
    // existed or with Kueue switched on since, so what was just applied never
    // outlives its end.
    if (settled && target && target.kind !== "platform" && change.tenantId) {
      const kueue = o.settings.render.kueue.enabled;
      if (target.kind === "project") steps.push(scheduleBoundaries(tx, { tenantId: change.tenantId, projectIds: [target.project.id], at: now, projects: true, tenant: kueue }));
      else steps.push(scheduleBoundaries(tx, { tenantId: change.tenantId, projectIds: target.projects.map((p) => p.id), at: now, projects: false, tenant: kueue }));
    }
    // Every step ends before the transaction does, even when one fails (the first failure rolls it back).
    const failed = (await Promise.allSettled(steps)).find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
  });
  return outcome;
}

/** The change's own row: done, failed, or back to pending (or superseded by a newer one), only while this worker holds it. */
async function settleChange(o: ReconcilerOptions, tx: Database, change: Change, outcome: Outcome, objects: ClusterObject[], deletions: ObjectRef[], now: Date): Promise<void> {
  // Only the worker still holding the claim may finish the change: a slow
  // worker whose lease lapsed must not overwrite its successor's result.
  const mine = and(eq(clusterChanges.id, change.id), eq(clusterChanges.status, "applying"), eq(clusterChanges.claimedBy, o.workerId));
  const common = { objects: objects as unknown as Record<string, unknown>[], deletions, claimedBy: null, claimedUntil: null, updatedAt: now };
  if (outcome.status === "applied" || outcome.status === "recorded") {
    const [done] = await tx.update(clusterChanges).set({ ...common, status: outcome.status, lastError: null, lastErrorReason: null, finishedAt: now }).where(mine).returning({ id: clusterChanges.id });
    // Older failures of this target are settled by this success: nothing left to retry there.
    if (done) {
      await tx
        .update(clusterChanges)
        .set({ status: "superseded", updatedAt: now })
        .where(and(eq(clusterChanges.targetKey, change.targetKey), eq(clusterChanges.status, "failed"), lt(clusterChanges.id, change.id)));
    }
  } else if (outcome.status === "failed") {
    await tx.update(clusterChanges).set({ ...common, status: "failed", lastError: outcome.error, lastErrorReason: outcome.reason, finishedAt: now }).where(mine);
  } else {
    // Back to pending, unless a newer change for the target is already
    // waiting: that one renders the same (or newer) state, so this one is done.
    const [newer] = await tx
      .select({ id: clusterChanges.id })
      .from(clusterChanges)
      .where(and(eq(clusterChanges.targetKey, change.targetKey), eq(clusterChanges.status, "pending")));
    await tx
      .update(clusterChanges)
      .set(
        newer
          ? { ...common, status: "superseded", lastError: outcome.error, lastErrorReason: outcome.reason, finishedAt: now }
          : { ...common, status: "pending", lastError: outcome.error, lastErrorReason: outcome.reason, nextAttemptAt: new Date(now.getTime() + outcome.delayMs) },
      )
      .where(mine);
  }
}

/** The ResourceFlavors a tenant's rendered ClusterQueues name. */
function flavorsNamedBy(objects: readonly { kind: string }[]): Set<string> {
  const names = new Set<string>();
  for (const o of objects) if (o.kind === "ClusterQueue") for (const g of (o as ClusterQueue).spec?.resourceGroups ?? []) for (const f of g.flavors) names.add(f.name);
  return names;
}

/**
 * A tenant's ClusterQueues name the platform's flavours, which another target
 * applies: a queue applied before its flavour exists admits nothing (Kueue
 * marks it inactive), and pruning would then delete the flavours an earlier
 * release named per tenant while they are still what runs. So a flavour not
 * yet there (a pool just added, a cluster upgraded from per-tenant flavours)
 * queues the platform change, and in live mode this change waits for it
 * (retried with backoff); record-only only queues it.
 */
async function awaitPlatformFlavors(o: ReconcilerOptions, target: Target & { kind: "tenant" }, objects: readonly ClusterObject[], render: RenderConfig, at: Date, listing?: OwnedListing): Promise<void> {
  const named = flavorsNamedBy(objects);
  if (named.size === 0) return;
  const present = new Set<string>();
  if (o.client) {
    // From the batch's listing when there is one (the tenants' prunes list ResourceFlavors anyway): no LIST of its own per tenant.
    const scope = ownedScope({ kind: "platform", dedicated: [] }, render);
    for (const f of listing ? await listing.seen(scope) : await listOwned(o.client, scope)) present.add(f.name);
  } else {
    const rows = await o.db
      .select({ name: clusterObjects.name })
      .from(clusterObjects)
      .where(and(isNull(clusterObjects.tenantId), eq(clusterObjects.kind, "ResourceFlavor"), inArray(clusterObjects.name, [...named])));
    for (const r of rows) present.add(r.name);
  }
  const missing = [...named].filter((n) => !present.has(n)).sort();
  if (missing.length === 0) return;
  await enqueuePlatformFlavorsChange(o.db, { reason: `tenant ${target.tenant.slug}'s queues name ResourceFlavors not there yet: ${missing.join(", ")}`, at }, { always: true });
  if (o.client) throw new ClusterApiError(`Waiting for the platform's ResourceFlavors ${missing.join(", ")} (queued) before the ClusterQueues that name them`, { reason: FLAVORS_NOT_READY, retryable: true });
}

/**
 * Before the platform target deletes flavours no pool offers any more: none
 * may still be named by a ClusterQueue on the cluster (the portal's or
 * anyone's), or those queues would stop admitting. Such a flavour waits
 * (retried with backoff) until the tenants' changes queued with the pool
 * change have moved their queues off it. The queues are listed afresh, not
 * read from the batch's shared listing: that one holds only the portal's
 * objects, and as they were when it was taken, while a queue another worker
 * applied since must still hold the flavour back. One LIST, and only when a
 * flavour is about to go.
 */
async function refuseNamedFlavors(client: ClusterClient, stale: readonly ObjectRef[], render: RenderConfig): Promise<void> {
  const flavors = stale.filter((r) => r.kind === "ResourceFlavor");
  if (flavors.length === 0) return;
  const queues = await client.list(`kueue.x-k8s.io/${render.kueue.apiVersion}`, "ClusterQueue", { labelSelector: "" });
  const named = queues.map((q) => ({ name: q.metadata?.name ?? "", flavors: flavorsNamedBy([{ ...q, kind: "ClusterQueue" }]) }));
  const held = flavors.flatMap((f) => {
    const by = named.filter((q) => q.flavors.has(f.name)).map((q) => q.name);
    return by.length > 0 ? [`${f.name} (named by ClusterQueue ${by.sort().join(", ")})`] : [];
  });
  if (held.length > 0) throw new ClusterApiError(`Not deleting ResourceFlavor ${held.join("; ")} while a queue names it; trying again`, { reason: "FlavorInUse", retryable: true });
}

function failureOutcome(o: ReconcilerOptions, change: Change, error: unknown): Outcome {
  if (error instanceof InvalidObjectError) {
    // A bug in rendering, not a cluster problem: retrying renders the same thing.
    return { status: "failed", reason: "InvalidObject", error: `Rendering produced an invalid object, nothing was sent: ${error.message}` };
  }
  const e = error instanceof ObjectApplyError ? error.apiError : toClusterApiError(error);
  const message = error instanceof ObjectApplyError ? error.message : e.message;
  const reason = e.reason ?? (e.status ? `http_${e.status}` : "Unknown");
  if (!e.retryable) return { status: "failed", reason, error: message };
  if (change.attempts >= o.settings.maxAttempts) return { status: "failed", reason, error: `${message} (gave up after ${change.attempts} attempts)` };
  return { status: "retry", reason, error: message, delayMs: backoffMs(change.attempts, o, e.retryAfterMs) };
}

/**
 * Renew this worker's claims on the given changes (those it still holds), so a
 * slow apply is not taken over by another replica while this one is alive.
 */
export async function renewClaims(o: ReconcilerOptions, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  const now = o.clock();
  await o.db
    .update(clusterChanges)
    .set({ claimedUntil: new Date(now.getTime() + leaseOf(o)) })
    .where(and(inArray(clusterChanges.id, [...ids]), eq(clusterChanges.status, "applying"), eq(clusterChanges.claimedBy, o.workerId)));
}

/**
 * Hand claimed changes back to the queue at once (a stopping worker): due now,
 * for any other replica, without waiting for the lease to lapse. The attempt
 * that was counted when claiming is given back too: nothing was tried.
 */
export async function releaseClaims(o: ReconcilerOptions, ids: readonly number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const now = o.clock();
  const released = await o.db
    .update(clusterChanges)
    .set({ status: "pending", claimedBy: null, claimedUntil: null, nextAttemptAt: now, attempts: sql`greatest(${clusterChanges.attempts} - 1, 0)`, updatedAt: now })
    .where(and(inArray(clusterChanges.id, [...ids]), eq(clusterChanges.status, "applying"), eq(clusterChanges.claimedBy, o.workerId)))
    .returning({ id: clusterChanges.id });
  return released.length;
}

/**
 * Claim and process due changes until none are due (or the signal stops the
 * worker). Returns how many were processed. While a batch is worked on, its
 * claims are renewed by heartbeat; when the signal aborts, changes not yet
 * started are released at once and the ones in flight finish.
 */
export async function reconcileDue(o: ReconcilerOptions): Promise<number> {
  let processed = 0;
  const leaseMs = leaseOf(o);
  while (!o.signal?.aborted) {
    const claimed = await claimDueChanges(o);
    if (claimed.length === 0) return processed;
    const queue = [...claimed];
    const held = new Set(claimed.map((c) => c.id));
    // One prune listing per batch: one LIST per kind for all its targets, not one per kind and target.
    const batch: Batch = { listing: o.client ? new OwnedListing(o.client) : undefined, pools: poolsOnce(o.db) };
    const heartbeat = setInterval(() => void renewClaims(o, [...held]).catch(() => undefined), Math.max(50, Math.floor(leaseMs / 3)));
    heartbeat.unref();
    try {
      const lanes = Array.from({ length: Math.min(o.concurrency ?? 4, queue.length) }, async () => {
        for (let c = queue.shift(); c && !o.signal?.aborted; c = queue.shift()) {
          await processChange(o, c, batch);
          held.delete(c.id);
          processed += 1;
        }
      });
      // Every lane ends before claims are released, even when one fails.
      const failed = (await Promise.allSettled(lanes)).find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
    } finally {
      clearInterval(heartbeat);
      // Stopped mid-batch (or a lane failed): what was not started goes back to the queue now.
      if (held.size > 0) await releaseClaims(o, [...held]);
    }
  }
  return processed;
}
