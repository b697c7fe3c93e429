import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "@/db/client";
import { memberships, notifications, platformAdmins } from "@/db/schema";
import { groupTenantAdminIds } from "@/lib/groups/derived";

export interface Notice {
  kind: string;
  title: string;
  body?: string;
  /** A path in the portal, e.g. the request's page. */
  link?: string;
}

/** In-app notices for people, written in the caller's transaction so a notice exists only if what it reports does. */
export async function notify(db: Database, principalIds: readonly (string | null | undefined)[], notice: Notice, at: Date): Promise<void> {
  const ids = [...new Set(principalIds.filter((p): p is string => Boolean(p)))];
  if (ids.length === 0) return;
  await db.insert(notifications).values(ids.map((principalId) => ({ principalId, kind: notice.kind, title: notice.title, body: notice.body ?? "", link: notice.link ?? null, createdAt: at })));
}

/** A tenant's admins, direct and through a group, each once. */
export async function tenantAdminIds(db: Database, tenantId: string): Promise<string[]> {
  const [rows, viaGroups] = await Promise.all([
    db
      .select({ id: memberships.principalId })
      .from(memberships)
      .where(and(eq(memberships.tenantId, tenantId), inArray(memberships.role, ["tenant_admin"]))),
    groupTenantAdminIds(db, tenantId),
  ]);
  return [...new Set([...rows.map((r) => r.id), ...viaGroups])];
}

export async function platformAdminIds(db: Database): Promise<string[]> {
  return (await db.select({ id: platformAdmins.principalId }).from(platformAdmins)).map((r) => r.id);
}
