import "server-only";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/db/client";
import { projects, serviceAccounts, tenants } from "@/db/schema";
import { AppError } from "@/lib/errors";

/**
 * Find the rows a command acts on, by the slugs in its URL. Missing rows are
 * not_found; the ids that authorization uses come from these rows only.
 */

export async function tenantBySlug(db: Database, slug: string) {
  const [tenant] = await db.select().from(tenants).where(eq(tenants.slug, slug));
  if (!tenant) throw new AppError("not_found");
  return tenant;
}

export async function projectBySlugs(db: Database, tenantSlug: string, projectSlug: string) {
  const [row] = await db
    .select({ tenant: tenants, project: projects })
    .from(projects)
    .innerJoin(tenants, eq(tenants.id, projects.tenantId))
    .where(and(eq(tenants.slug, tenantSlug), eq(projects.slug, projectSlug)));
  if (!row) throw new AppError("not_found");
  return row;
}

export async function serviceAccountByName(db: Database, tenantId: string, name: string) {
  const [account] = await db
    .select()
    .from(serviceAccounts)
    .where(and(eq(serviceAccounts.tenantId, tenantId), eq(serviceAccounts.name, name)));
  if (!account) throw new AppError("not_found");
  return account;
}

/** Writes into a disabled tenant or an archived project are refused with a clear reason. */
export function assertTenantActive(tenant: { status: string }) {
  if (tenant.status !== "active") throw new AppError("conflict", "This tenant is disabled; re-enable it first.");
}

export function assertProjectOpen(project: { archivedAt: Date | null }) {
  if (project.archivedAt) throw new AppError("conflict", "This project is archived; nothing can be changed in it.");
}
