import type { Database } from "@/db/client";
import { projects, tenants } from "@/db/schema";
import { addGrant, DAY, newMember, unique, uniqueEmail, userWithEmail } from "./tenancy";

/** A tenant of its own for a review test: two admins, a member with a grant, a collaborator sponsored by the first admin. */
export async function freshReviewedTenant(db: Database, seededAt: Date, now: Date) {
  const slug = unique("reviewed");
  const [tenant] = await db.insert(tenants).values({ slug, name: `Reviewed ${slug}`, createdAt: seededAt }).returning();
  const [project] = await db.insert(projects).values({ tenantId: tenant!.id, slug: "work", name: "Work", namespace: `${slug}--work`, createdAt: seededAt }).returning();
  const admin = await newMember(db, tenant!.id, "tenant_admin", seededAt);
  const secondAdmin = await newMember(db, tenant!.id, "tenant_admin", seededAt);
  const member = await newMember(db, tenant!.id, "member", seededAt);
  const memberGrant = await addGrant(db, { projectId: project!.id, principalId: member, role: "member", expiresAt: null, grantedBy: admin, createdAt: seededAt });
  const guest = await userWithEmail(db, uniqueEmail("guest"), seededAt);
  const guestGrant = await addGrant(db, { projectId: project!.id, principalId: guest, role: "viewer", expiresAt: new Date(now.getTime() + 30 * DAY), grantedBy: admin, createdAt: seededAt });
  return { slug, tenantId: tenant!.id, projectId: project!.id, admin, secondAdmin, member, memberGrant, guest, guestGrant };
}
