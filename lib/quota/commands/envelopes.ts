import "server-only";
import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { projects, tenantQuotaEnvelopes } from "@/db/schema";
import type { Database } from "@/db/client";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { enqueueProjectChange } from "@/lib/cluster/outbox";
import { AppError } from "@/lib/errors";
import { assertTenantActive, tenantBySlug } from "@/lib/tenancy/lookup";
import { onTenant, tenantAddress } from "@/lib/tenancy/targets";
import { amountText, divideEnvelope, envelopeProblem, keyOfLine, lineOfKey, moveLines, moveProblem, parseLineAmount, quotaKeyInput, type QuotaKey } from "../envelope";
import { capacityAtMinNowMax } from "../capacity";
import { gpuResourcesByModel, guaranteedAcrossTenants, lockGuaranteeSum, tenantEnvelope } from "../envelope-store";
import { DEFAULT_FLAVOR } from "../lines";
import { loadPools, loadQuotaPolicy } from "../store";
import { insertGrant } from "../grant-store";
import type { QuotaLine } from "../lines";
import { NO_POOL_OFFERS, atMostChars } from "@/lib/input/messages";

/**
 * The tenant's envelope, set by the platform, and the moves its admins make
 * inside it without a ticket. A move is a pair of permanent grants sharing a
 * transfer id (one takes a guarantee from a project, one gives it to
 * another), written with both projects' cluster changes and the audit event
 * in one transaction; the tenant's envelope rows are locked first, so two
 * moves (or a move and an approval) on one tenant take turns.
 */

/** The line a key names, or a field error naming `quota`. */
async function lineFor(db: Parameters<typeof gpuResourcesByModel>[0], key: QuotaKey) {
  const line = lineOfKey(key, await gpuResourcesByModel(db));
  if (!line) throw new AppError("validation", undefined, { quota: [NO_POOL_OFFERS] });
  return line;
}

function amountOrFail(key: QuotaKey, text: unknown, field: string): number {
  const parsed = parseLineAmount(key, text);
  if (!parsed.ok) throw new AppError("validation", undefined, { [field]: [parsed.message] });
  return parsed.value;
}

export const setTenantEnvelope = defineCommand({
  name: "setTenantEnvelope",
  input: tenantAddress.extend({
    quota: quotaKeyInput,
    // Parsed per line below: GPUs are whole devices, CPU a quantity of cores, memory GiB.
    guarantee: amountText,
    burst: z.preprocess((v) => (v === "" || v === null ? undefined : v), amountText.optional()),
  }),
  target: onTenant("tenant.envelope.manage"),
  async run(ctx, input, { tenantId }) {
    const guarantee = amountOrFail(input.quota, input.guarantee, "guarantee");
    const burst = input.burst === undefined ? 0 : amountOrFail(input.quota, input.burst, "burst");
    return ctx.db.transaction(async (tx) => {
      const tenant = await tenantBySlug(tx, input.tenant);
      assertTenantActive(tenant);
      const line = await lineFor(tx, input.quota);
      await lockGuaranteeSum(tx);
      const { rows, holdings } = await tenantEnvelope(tx, tenantId, ctx.now, true);
      const row = rows.find((r) => r.line.flavor === line.flavor && r.line.resource === line.resource);
      // Projects may already hold the line from approvals made before the envelope existed: it starts at least there.
      const [held] = divideEnvelope([{ ...line, guarantee, burst }], holdings);
      const problem = envelopeProblem(held, guarantee, burst);
      if (problem) throw new AppError("validation", undefined, { [problem.field]: [problem.message] });
      // GPUs promised to tenants must exist even when the autoscaler shrinks the pools: guarantees across all tenants fit the pools at their minimum.
      if (line.flavor !== DEFAULT_FLAVOR && guarantee > (row?.line.guarantee ?? 0)) {
        const [pools, policy] = await Promise.all([loadPools(tx), loadQuotaPolicy(tx)]);
        const atMin = capacityAtMinNowMax(pools, policy.overcommit).find((c) => c.resource === input.quota)?.atMin ?? 0;
        const total = await guaranteedAcrossTenants(tx, line, ctx.now, { tenantId, guarantee });
        if (total > atMin) {
          throw new AppError("validation", undefined, {
            guarantee: [`Enter a smaller guarantee: this would guarantee ${total} ${line.flavor} across all tenants, more than the pools hold at their autoscaler minimum (${atMin}).`],
          });
        }
      }
      const before = row ? { guarantee: row.line.guarantee, burst: row.line.burst } : null;
      if (guarantee === 0 && burst === 0) {
        await tx.delete(tenantQuotaEnvelopes).where(and(eq(tenantQuotaEnvelopes.tenantId, tenantId), eq(tenantQuotaEnvelopes.flavor, line.flavor), eq(tenantQuotaEnvelopes.resource, line.resource)));
      } else {
        await tx
          .insert(tenantQuotaEnvelopes)
          .values({ tenantId, ...line, guarantee: String(guarantee), burst: String(burst), updatedBy: ctx.actor.principalId, updatedAt: ctx.now })
          .onConflictDoUpdate({
            target: [tenantQuotaEnvelopes.tenantId, tenantQuotaEnvelopes.flavor, tenantQuotaEnvelopes.resource],
            set: { guarantee: String(guarantee), burst: String(burst), updatedBy: ctx.actor.principalId, updatedAt: ctx.now, version: sql`${tenantQuotaEnvelopes.version} + 1` },
          });
      }
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: "tenant.envelope.set",
        target: { type: "tenant", id: tenantId },
        before: before ? { quota: input.quota, ...before } : null,
        after: { quota: input.quota, guarantee, burst },
      });
      return { quota: input.quota, ...line, guarantee, burst };
    });
  },
});

/** A project of the tenant by slug (looked up among its open projects, which names the field when it is not one); "" or absent: the envelope's unallocated part. */
const projectOrEnvelope = z.preprocess((v) => (v === "" || v === null ? undefined : v), z.string().max(64, atMostChars(64)).optional());

export const moveQuota = defineCommand({
  name: "moveQuota",
  input: tenantAddress.extend({
    quota: quotaKeyInput,
    from: projectOrEnvelope,
    to: projectOrEnvelope,
    amount: amountText,
  }),
  target: onTenant("tenant.quota.move"),
  async run(ctx, input, { tenantId }) {
    const amount = amountOrFail(input.quota, input.amount, "amount");
    return ctx.db.transaction(async (tx) => {
      const tenant = await tenantBySlug(tx, input.tenant);
      assertTenantActive(tenant);
      const line = await lineFor(tx, input.quota);
      const { rows, holdings } = await tenantEnvelope(tx, tenantId, ctx.now, true);
      const holdingOf = (slug: string | undefined, field: "from" | "to") => {
        if (slug === undefined) return null;
        const h = holdings.find((x) => x.slug === slug);
        if (!h) throw new AppError("validation", undefined, { [field]: ["Choose an open project of this tenant."] });
        return h;
      };
      const from = holdingOf(input.from, "from");
      const to = holdingOf(input.to, "to");
      // Both projects' rows are locked too: an archive or a request on either waits for the move.
      for (const h of [from, to]) if (h) await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, h.projectId)).for("no key update");
      const row = rows.find((r) => r.line.flavor === line.flavor && r.line.resource === line.resource);
      const problem = moveProblem(row, from, to, amount);
      if (problem) throw new AppError("validation", undefined, { [problem.field]: [problem.message] });

      const transferId = randomUUID();
      const { taken, given } = moveLines(line, amount);
      const reason = `quota moved within the envelope (${input.quota})`;
      for (const [holding, lines] of [
        [from, taken],
        [to, given],
      ] as const) {
        if (!holding) continue;
        await insertGrant(tx, { projectId: holding.projectId, lines, startsAt: ctx.now, endsAt: null, source: "move", transferId, createdAt: ctx.now });
        await enqueueProjectChange(tx, { tenantId, projectId: holding.projectId, reason, at: ctx.now });
      }
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId,
        action: "quota.moved",
        target: { type: "tenant", id: tenantId },
        after: { transferId, quota: input.quota, amount, from: from?.slug ?? "(unallocated)", to: to?.slug ?? "(unallocated)" },
      });
      return { transferId, quota: input.quota, amount, from: from?.slug ?? null, to: to?.slug ?? null };
    });
  },
});

/**
 * After the platform approves a request in a tenant that has an envelope, the
 * envelope grows to what its projects now hold where the approval went beyond
 * it: a guarantee beyond the envelope is the platform's decision, and the
 * envelope keeps saying what the platform approved for the tenant. Called in
 * the approval's transaction, after its grant is written.
 */
export async function raiseEnvelopeToHoldings(tx: Database, tenantId: string, lines: readonly QuotaLine[], actor: AuditActor, at: Date): Promise<void> {
  const { rows } = await tenantEnvelope(tx, tenantId, at, true);
  for (const row of rows) {
    if (!lines.some((l) => l.flavor === row.line.flavor && l.resource === row.line.resource)) continue;
    const guarantee = Math.max(row.line.guarantee, row.allocated);
    const burst = Math.max(row.line.burst, row.burstAllocated);
    if (guarantee === row.line.guarantee && burst === row.line.burst) continue;
    await tx
      .update(tenantQuotaEnvelopes)
      .set({ guarantee: String(guarantee), burst: String(burst), updatedBy: actor.principalId, updatedAt: at, version: sql`${tenantQuotaEnvelopes.version} + 1` })
      .where(and(eq(tenantQuotaEnvelopes.tenantId, tenantId), eq(tenantQuotaEnvelopes.flavor, row.line.flavor), eq(tenantQuotaEnvelopes.resource, row.line.resource)));
    await recordAudit(tx, {
      actor,
      at,
      tenantId,
      action: "tenant.envelope.raised_by_approval",
      target: { type: "tenant", id: tenantId },
      before: { quota: keyOfLine(row.line), guarantee: row.line.guarantee, burst: row.line.burst },
      after: { quota: keyOfLine(row.line), guarantee, burst },
    });
  }
}
