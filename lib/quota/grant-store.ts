import "server-only";
import { asc, inArray } from "drizzle-orm";
import type { Database } from "@/db/client";
import { projectQuotaSettings, quotaGrantLines, quotaGrants, quotaRequestLines } from "@/db/schema";
import { bumpSpendVersion } from "@/lib/metering/spend-generations";
import { amountsOfLines, compareLines, type LendLimit, type QuotaLine } from "./lines";

/**
 * The one writer of quota grants and the reader of grant and request lines.
 * A grant's lines are the truth; its fixed columns (guarantees, one GPU
 * model) are written beside them for the previous release during a rolling
 * upgrade, and go when the columns are contracted.
 */

export interface NewGrant {
  projectId: string;
  requestId?: string | null;
  lines: readonly QuotaLine[];
  startsAt: Date;
  endsAt: Date | null;
  source?: "request" | "onboarding" | "move" | "demo";
  transferId?: string | null;
  createdAt: Date;
}

/** numeric columns come back as text from both drivers; amounts are exact decimals well within a double's integers. */
const num = (v: string | number) => Number(v);
const text = (n: number) => String(n);

/** Insert a grant and its lines in the caller's transaction; returns the grant's id. */
export async function insertGrant(tx: Database, grant: NewGrant): Promise<string> {
  const summary = amountsOfLines(grant.lines);
  const [row] = await tx
    .insert(quotaGrants)
    .values({
      projectId: grant.projectId,
      requestId: grant.requestId ?? null,
      gpuModel: summary.gpuModel,
      gpuResource: summary.gpuResource,
      gpuCount: summary.gpuCount,
      cpuCores: summary.cpuCores,
      memoryBytes: summary.memoryBytes,
      storageBytes: summary.storageBytes,
      startsAt: grant.startsAt,
      endsAt: grant.endsAt,
      source: grant.source ?? "request",
      transferId: grant.transferId ?? null,
      createdAt: grant.createdAt,
    })
    .returning({ id: quotaGrants.id });
  const lines = grant.lines.filter((l) => l.guarantee !== 0 || l.burst !== 0);
  if (lines.length > 0) {
    await tx.insert(quotaGrantLines).values(
      lines.map((l) => ({ grantId: row!.id, flavor: l.flavor, resource: l.resource, guarantee: text(l.guarantee), burst: text(l.burst) })),
    );
  }
  // Borrowed GPU use in cached spend figures is measured against the grants (lib/metering/report-cache.ts).
  await bumpSpendVersion(tx, "grants");
  return row!.id;
}

/** Insert a request's lines (what it asks for) in the caller's transaction. */
export async function insertRequestLines(tx: Database, requestId: string, lines: readonly QuotaLine[]): Promise<void> {
  const kept = lines.filter((l) => l.guarantee !== 0 || l.burst !== 0);
  if (kept.length === 0) return;
  await tx.insert(quotaRequestLines).values(
    kept.map((l) => ({ requestId, flavor: l.flavor, resource: l.resource, guarantee: text(l.guarantee), burst: text(l.burst) })),
  );
}

type LineRow = { flavor: string; resource: string; guarantee: string; burst: string };
const lineOf = (r: LineRow): QuotaLine => ({ flavor: r.flavor, resource: r.resource, guarantee: num(r.guarantee), burst: num(r.burst), lendLimit: null });

/** The lines of each grant, ordered ("default" flavour first). */
export async function linesOfGrants(db: Database, grantIds: readonly string[]): Promise<Map<string, QuotaLine[]>> {
  const out = new Map<string, QuotaLine[]>();
  if (grantIds.length === 0) return out;
  const rows = await db
    .select()
    .from(quotaGrantLines)
    .where(inArray(quotaGrantLines.grantId, [...grantIds]))
    .orderBy(asc(quotaGrantLines.grantId), asc(quotaGrantLines.flavor), asc(quotaGrantLines.resource));
  for (const r of rows) out.set(r.grantId, [...(out.get(r.grantId) ?? []), lineOf(r)]);
  for (const lines of out.values()) lines.sort(compareLines);
  return out;
}

/** The lines of each request, ordered ("default" flavour first). */
export async function linesOfRequests(db: Database, requestIds: readonly string[]): Promise<Map<string, QuotaLine[]>> {
  const out = new Map<string, QuotaLine[]>();
  if (requestIds.length === 0) return out;
  const rows = await db.select().from(quotaRequestLines).where(inArray(quotaRequestLines.requestId, [...requestIds]));
  for (const r of rows) out.set(r.requestId, [...(out.get(r.requestId) ?? []), lineOf(r)]);
  for (const lines of out.values()) lines.sort(compareLines);
  return out;
}

/** Every project's lend limits (project_quota_settings), the platform-wide read; a project without any is left out. */
export async function allLendLimits(db: Database): Promise<Map<string, LendLimit[]>> {
  const out = new Map<string, LendLimit[]>();
  for (const r of await db.select().from(projectQuotaSettings)) {
    const limit = { flavor: r.flavor, resource: r.resource, lendLimit: num(r.lendLimit) };
    const limits = out.get(r.projectId);
    if (limits) limits.push(limit);
    else out.set(r.projectId, [limit]);
  }
  return out;
}

/** Each project's lend limits (project_quota_settings); a project without any is left out. */
export async function lendLimitsOf(db: Database, projectIds: readonly string[]): Promise<Map<string, LendLimit[]>> {
  const out = new Map<string, LendLimit[]>();
  if (projectIds.length === 0) return out;
  const rows = await db.select().from(projectQuotaSettings).where(inArray(projectQuotaSettings.projectId, [...projectIds]));
  for (const r of rows) out.set(r.projectId, [...(out.get(r.projectId) ?? []), { flavor: r.flavor, resource: r.resource, lendLimit: num(r.lendLimit) }]);
  return out;
}
