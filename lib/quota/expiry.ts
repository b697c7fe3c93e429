import { and, eq, gt, inArray, isNotNull, isNull, lte, or } from "drizzle-orm";
import type { Database } from "@/db/client";
import { projects, quotaGrants, quotaRequestEvents, quotaRequests } from "@/db/schema";
import { formatDateTime } from "@/lib/format";
import type { PeriodicJob } from "@/lib/jobs/periodic";
import { notify, tenantAdminIds } from "@/lib/notify/in-app";
import { projectPlace, projectQuotaPath, requestPath } from "./places";
import { loadQuotaPolicy } from "./store";

const SYSTEM = "system:expiry";
/** The statuses of a request whose grant is in force (until it ends). */
const GRANT_HOLDING = ["approved", "auto_approved", "applied", "apply_failed"] as const satisfies readonly (typeof quotaRequests.$inferSelect.status)[];

/**
 * Time passing, made visible (quotaExpiryJob runs this every minute):
 * - a pending request whose end passed before anyone decided is expired;
 * - a time-bound grant nearing its end warns the tenant admins and the
 *   requester once, `expiryWarningHours` ahead;
 * - a grant that ended expires its request. The quota itself drops through
 *   the cluster change scheduled for that instant (lib/cluster/desired-from-db).
 *
 * `endedSince` (the previous sweep's instant) limits the last step to grants
 * that ended after it, instead of reading every grant that ever ended; without
 * it (a process's first sweep) every ended grant whose request still holds it
 * is read, so nothing that ended while no sweep ran is missed.
 */
export async function sweepQuotaTimeouts(db: Database, now: Date, o: { endedSince?: Date } = {}): Promise<{ expiredPending: number; warned: number; expiredGrants: number }> {
  const policy = await loadQuotaPolicy(db);
  return db.transaction(async (tx) => {
    const stale = await tx
      .update(quotaRequests)
      .set({ status: "expired" })
      .where(and(eq(quotaRequests.status, "pending"), isNotNull(quotaRequests.endsAt), lte(quotaRequests.endsAt, now)))
      .returning();
    for (const r of stale) {
      await tx.insert(quotaRequestEvents).values({ requestId: r.id, at: now, actorLabel: SYSTEM, kind: "expired", detail: { why: "its end passed before a decision" } });
      const w = await projectPlace(tx, r.projectId);
      await notify(tx, [r.requestedBy], { kind: "quota_request.expired", title: `Your quota request for ${w.name} expired undecided`, link: requestPath(w.tenant, w.project, r.id) }, now);
    }

    const warnBefore = new Date(now.getTime() + policy.expiryWarningHours * 3_600_000);
    const nearing = await tx
      .update(quotaGrants)
      .set({ expiryWarnedAt: now })
      .where(and(isNull(quotaGrants.expiryWarnedAt), isNotNull(quotaGrants.endsAt), gt(quotaGrants.endsAt, now), lte(quotaGrants.endsAt, warnBefore)))
      .returning();
    for (const g of nearing) {
      const w = await projectPlace(tx, g.projectId);
      const [request] = g.requestId ? await tx.select({ requestedBy: quotaRequests.requestedBy, tenantId: quotaRequests.tenantId }).from(quotaRequests).where(eq(quotaRequests.id, g.requestId)) : [];
      const [tenant] = await tx.select({ id: projects.tenantId }).from(projects).where(eq(projects.id, g.projectId));
      await notify(
        tx,
        [request?.requestedBy, ...(await tenantAdminIds(tx, tenant!.id))],
        { kind: "quota_grant.ending", title: `Quota for ${w.name} ends ${formatDateTime(g.endsAt!)}`, body: "The project's quota drops then; extend the grant from the project's quota page before it ends to keep it.", link: projectQuotaPath(w.tenant, w.project) },
        now,
      );
    }

    // The request that wrote the grant, and any approved extension of it: both held the grant until now.
    const ended = await tx
      .select({ requestId: quotaRequests.id, grantId: quotaGrants.id })
      .from(quotaGrants)
      .innerJoin(quotaRequests, or(eq(quotaRequests.id, quotaGrants.requestId), eq(quotaRequests.extendsGrantId, quotaGrants.id)))
      .where(
        and(
          inArray(quotaRequests.status, GRANT_HOLDING),
          isNotNull(quotaGrants.endsAt),
          lte(quotaGrants.endsAt, now),
          o.endedSince ? gt(quotaGrants.endsAt, o.endedSince) : undefined,
        ),
      );
    const endedIds = ended.map((e) => e.requestId);
    const expired = endedIds.length
      ? await tx
          .update(quotaRequests)
          .set({ status: "expired" })
          .where(and(inArray(quotaRequests.id, endedIds), inArray(quotaRequests.status, GRANT_HOLDING)))
          .returning()
      : [];
    // One notice per grant: an extension's request is told only when the grant's own request is not (a demo or onboarding grant has none).
    const noticed = new Set(expired.filter((r) => r.extendsGrantId === null).map((r) => ended.find((e) => e.requestId === r.id)?.grantId));
    for (const r of expired) {
      await tx.insert(quotaRequestEvents).values({ requestId: r.id, at: now, actorLabel: SYSTEM, kind: "grant_ended" });
      if (r.extendsGrantId !== null && noticed.has(r.extendsGrantId)) continue;
      const w = await projectPlace(tx, r.projectId);
      await notify(tx, [r.requestedBy, ...(await tenantAdminIds(tx, r.tenantId))], { kind: "quota_grant.ended", title: `Time-bound quota for ${w.name} ended`, link: requestPath(w.tenant, w.project, r.id) }, now);
    }
    return { expiredPending: stale.length, warned: nearing.length, expiredGrants: expired.length };
  });
}

/**
 * The sweep as a periodic job: every minute is precise enough for request
 * statuses and warnings (the quota itself drops on time through the cluster
 * change scheduled for the grant's end). Each run reads the grants that ended
 * since the previous successful run of this process.
 */
export function quotaExpiryJob(db: Database): PeriodicJob {
  let lastSwept: Date | undefined;
  return {
    name: "quota expiry",
    everyMs: 60_000,
    phase: "before-reconcile",
    async run(now) {
      const r = await sweepQuotaTimeouts(db, now, { endedSince: lastSwept });
      lastSwept = now;
      const n = r.expiredPending + r.warned + r.expiredGrants;
      return n > 0 ? `${r.expiredPending} pending requests expired, ${r.warned} grants warned of their end, ${r.expiredGrants} ended` : null;
    },
  };
}
