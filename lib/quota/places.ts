import { eq } from "drizzle-orm";
import type { Database } from "@/db/client";
import { projects, tenants } from "@/db/schema";

/** Where a quota request lives in the portal (notices, webhooks and redirects link here). */
export const requestPath = (tenantSlug: string, projectSlug: string, id: string) => `/tenants/${tenantSlug}/projects/${projectSlug}/quota/requests/${id}`;
export const projectQuotaPath = (tenantSlug: string, projectSlug: string) => `/tenants/${tenantSlug}/projects/${projectSlug}/quota`;

/** A project's tenant slug, slug and name: what notices about it name and link to. */
export async function projectPlace(db: Database, projectId: string): Promise<{ tenant: string; project: string; name: string }> {
  const [row] = await db
    .select({ tenant: tenants.slug, project: projects.slug, name: projects.name })
    .from(projects)
    .innerJoin(tenants, eq(tenants.id, projects.tenantId))
    .where(eq(projects.id, projectId));
  if (!row) throw new Error(`project ${projectId} not found`);
  return row;
}
