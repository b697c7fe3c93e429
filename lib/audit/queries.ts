import "server-only";
import { and, desc, eq, gte, ilike, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { wholeNumber } from "@/lib/input/numbers";
import { instantInput } from "@/lib/input/instants";
import { auditEvents, tenants } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { AppError } from "@/lib/errors";
import { DATE_EXAMPLE } from "@/lib/input/messages";

export const auditFilterInput = z.object({
  tenant: z.string().trim().max(40).optional(),
  actor: z.string().trim().max(200).optional(),
  action: z.string().trim().max(100).optional(),
  target: z.string().trim().max(200).optional(),
  from: instantInput(DATE_EXAMPLE).optional(),
  to: instantInput(DATE_EXAMPLE).optional(),
  // Sequence numbers live in a bigint column, so any safe integer can name one.
  before: wholeNumber("before", { min: 1, max: Number.MAX_SAFE_INTEGER, empty: undefined }),
  limit: wholeNumber("limit", { min: 1, max: 5000, empty: 100 }),
});
export type AuditFilter = z.infer<typeof auditFilterInput>;

/** An actor filter matches a principal id exactly, or a name or email by substring. */
function actorCondition(actor: string): SQL | undefined {
  const byLabel = ilike(auditEvents.actorLabel, like(actor));
  return z.uuid().safeParse(actor).success ? or(byLabel, eq(auditEvents.actorPrincipalId, actor)) : byLabel;
}

/**
 * With a date range: the page starts at the newest event of the range, found in
 * audit_events_seq_at_idx alone (no table reads). Without it the planner walks the
 * log backward from its newest event, checking each row's date, and a month half a
 * year back is half a million rows away. The bound is exact (the largest seq among
 * the rows that match the range), so it needs no order between seq and at.
 */
function newestInRange(filter: AuditFilter): SQL {
  const range = [
    filter.from ? sql`r.at >= ${filter.from.toISOString()}::timestamptz` : undefined,
    filter.to ? sql`r.at < ${filter.to.toISOString()}::timestamptz` : undefined,
    filter.before ? sql`r.seq < ${filter.before}` : undefined,
  ].filter((c): c is SQL => c !== undefined);
  return sql`${auditEvents.seq} <= (select max(r.seq) from ${auditEvents} r where ${sql.join(range, sql` and `)})`;
}

const like = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The audit log, newest first. Platform admins read all of it (optionally one
 * tenant); tenant admins read only their tenant's events: the tenant filter is
 * then forced, whatever was asked.
 */
export async function listAuditEvents(ctx: CommandContext, filter: AuditFilter) {
  let tenantId: string | undefined;
  if (filter.tenant) {
    const [tenant] = await ctx.db.select({ id: tenants.id }).from(tenants).where(eq(tenants.slug, filter.tenant));
    if (!tenant) throw new AppError("not_found");
    tenantId = tenant.id;
  }
  const everything = can(ctx.actor, "audit.view_all", { kind: "platform" }, ctx.now);
  if (!everything) {
    if (!tenantId || !can(ctx.actor, "tenant.audit.view", { kind: "tenant", tenantId }, ctx.now)) throw new AppError("not_found");
  }
  const conditions: (SQL | undefined)[] = [
    tenantId ? eq(auditEvents.tenantId, tenantId) : undefined,
    filter.actor ? actorCondition(filter.actor) : undefined,
    filter.action ? ilike(auditEvents.action, like(filter.action)) : undefined,
    filter.target ? or(ilike(auditEvents.targetId, like(filter.target)), ilike(auditEvents.targetType, like(filter.target))) : undefined,
    filter.from ? gte(auditEvents.at, filter.from) : undefined,
    filter.to ? lt(auditEvents.at, filter.to) : undefined,
    filter.before ? lt(auditEvents.seq, filter.before) : undefined,
    filter.from || filter.to ? newestInRange(filter) : undefined,
  ];
  const events = await ctx.db
    .select({
      seq: auditEvents.seq,
      at: auditEvents.at,
      actorPrincipalId: auditEvents.actorPrincipalId,
      actorLabel: auditEvents.actorLabel,
      tenantId: auditEvents.tenantId,
      tenantSlug: tenants.slug,
      action: auditEvents.action,
      targetType: auditEvents.targetType,
      targetId: auditEvents.targetId,
      before: auditEvents.before,
      after: auditEvents.after,
      hash: auditEvents.hash,
    })
    .from(auditEvents)
    .leftJoin(tenants, eq(tenants.id, auditEvents.tenantId))
    .where(and(...conditions))
    .orderBy(desc(auditEvents.seq))
    .limit(filter.limit);
  return { events, scope: tenantId ? "tenant" : "all", canVerify: can(ctx.actor, "audit.verify", { kind: "platform" }, ctx.now) };
}

/**
 * The recent history of one service account, newest first, keyset on seq
 * (`before`): what it did with its tokens, and what was done to it, its tokens
 * (by their prefixes) and its project roles (the grant events name it as
 * principal, before and after). For those who read the tenant's audit log;
 * null for anyone else, as the tenant's audit page is not theirs.
 */
export async function serviceAccountAuditEvents(
  ctx: CommandContext,
  account: { tenantId: string; principalId: string; tokenPrefixes: readonly string[] },
  page: { before?: number; limit: number },
) {
  if (!can(ctx.actor, "tenant.audit.view", { kind: "tenant", tenantId: account.tenantId }, ctx.now)) return null;
  const ids = [account.principalId, ...account.tokenPrefixes];
  const rows = await ctx.db
    .select({
      seq: auditEvents.seq,
      at: auditEvents.at,
      actorLabel: auditEvents.actorLabel,
      tenantSlug: sql<string | null>`null`,
      action: auditEvents.action,
      targetType: auditEvents.targetType,
      targetId: auditEvents.targetId,
      before: auditEvents.before,
      after: auditEvents.after,
    })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.tenantId, account.tenantId),
        page.before ? lt(auditEvents.seq, page.before) : undefined,
        or(
          eq(auditEvents.actorPrincipalId, account.principalId),
          inArray(auditEvents.targetId, ids),
          sql`${auditEvents.after}->>'principalId' = ${account.principalId}`,
          sql`${auditEvents.before}->>'principalId' = ${account.principalId}`,
        ),
      ),
    )
    .orderBy(desc(auditEvents.seq))
    .limit(page.limit + 1);
  return { events: rows.slice(0, page.limit), older: rows.length > page.limit ? rows[page.limit - 1]!.seq : null };
}
