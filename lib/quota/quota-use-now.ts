import "server-only";
import { and, eq } from "drizzle-orm";
import { clusterObjects } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { PROJECT_QUOTA_NAME } from "@/lib/cluster/render-quota";
import { quotaUseLinesOf, readProjectQuotaUse, type QuotaUseLine } from "@/lib/cluster/resource-quota-use";
import type { ClusterRuntime } from "@/lib/cluster/runtime";

/**
 * A project's hard cap now, for its home page: in live mode the namespace
 * ResourceQuota's status as the API server reports it (used against hard);
 * otherwise the plan the portal rendered, saying why there is no use to show
 * (no cluster connected, not applied yet, or the cluster could not be read).
 */
export type QuotaUseNow =
  | { mode: "record-only"; lines: QuotaUseLine[] }
  | { mode: "live"; server: string; readAt: Date; lines: QuotaUseLine[] }
  | { mode: "not-applied"; server: string; lines: QuotaUseLine[] }
  | { mode: "unavailable"; server: string; message: string; lines: QuotaUseLine[] };

/** Null when the actor may not see the project's quota (project.quota.view). */
export async function projectQuotaUseNow(ctx: CommandContext, project: { id: string; tenantId: string; namespace: string }, runtime: ClusterRuntime): Promise<QuotaUseNow | null> {
  if (!can(ctx.actor, "project.quota.view", { kind: "project", tenantId: project.tenantId, projectId: project.id }, ctx.now)) return null;
  const [stored] = await ctx.db
    .select({ manifest: clusterObjects.manifest })
    .from(clusterObjects)
    .where(and(eq(clusterObjects.projectId, project.id), eq(clusterObjects.kind, "ResourceQuota"), eq(clusterObjects.name, PROJECT_QUOTA_NAME)));
  const plan = quotaUseLinesOf((stored?.manifest as { spec?: { hard?: Record<string, string> } } | undefined)?.spec?.hard);
  if (!runtime.client) return { mode: "record-only", lines: plan };
  const server = runtime.client.server;
  const read = await readProjectQuotaUse(runtime.client, project.namespace);
  if ("error" in read) return { mode: "unavailable", server, message: read.error, lines: plan };
  if (!read.found) return { mode: "not-applied", server, lines: plan };
  return { mode: "live", server, readAt: new Date(), lines: read.lines };
}
