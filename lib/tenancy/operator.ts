import "server-only";
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "@/db/client";
import { platformAdmins, projectGrants, projects, serviceAccounts } from "@/db/schema";
import { recordAudit, type AuditActor } from "@/lib/audit/record";
import { AppError } from "@/lib/errors";
import { insertServiceAccount, issueToken } from "./commands/service-accounts";
import { tenantBySlug } from "./lookup";
import { enqueueProjectChange } from "@/lib/cluster/outbox";

/**
 * Operator bootstrap from the CLI (trusted: it holds the database credentials),
 * for automation that must exist before anyone signs in. Audited as system:cli.
 */
const CLI: AuditActor = { principalId: null, label: "system:cli" };

export type ServiceAccountSpec = {
  /** Null: a platform-scoped account holding the platform admin role. */
  tenant: string | null;
  name: string;
  description: string;
  projectRoles: { project: string; role: "member" | "viewer" }[];
};

export async function createServiceAccountAsOperator(db: Database, spec: ServiceAccountSpec, now: Date) {
  return db.transaction(async (tx) => {
    const tenant = spec.tenant ? await tenantBySlug(tx, spec.tenant) : null;
    if (!tenant && spec.projectRoles.length) throw new AppError("validation", "A platform-scoped service account takes no project roles.");
    const account = await insertServiceAccount(tx, { tenantId: tenant?.id ?? null, name: spec.name, description: spec.description }, CLI, now);
    if (!tenant) {
      await tx.insert(platformAdmins).values({ principalId: account.principalId, source: "cli", grantedAt: now });
      await recordAudit(tx, { actor: CLI, at: now, tenantId: null, action: "platform_admin.granted", target: { type: "principal", id: account.principalId }, after: { source: "cli", serviceAccount: spec.name } });
    }
    for (const { project: slug, role } of spec.projectRoles) {
      const [project] = await tx.select().from(projects).where(and(eq(projects.tenantId, tenant!.id), eq(projects.slug, slug)));
      if (!project) throw new AppError("not_found", `No project "${slug}" in tenant ${tenant!.slug}.`);
      const [grant] = await tx.insert(projectGrants).values({ projectId: project.id, principalId: account.principalId, role, createdAt: now }).returning();
      await recordAudit(tx, { actor: CLI, at: now, tenantId: tenant!.id, action: "project_grant.created", target: { type: "project_grant", id: grant!.id }, after: { projectId: project.id, principalId: account.principalId, role } });
      await enqueueProjectChange(tx, { tenantId: tenant!.id, projectId: project.id, reason: "project role granted", at: now });
    }
    return account;
  });
}

export async function mintTokenAsOperator(db: Database, tenant: string | null, name: string, expiresAt: Date | null, now: Date) {
  return db.transaction(async (tx) => {
    const tenantRow = tenant ? await tenantBySlug(tx, tenant) : null;
    const [account] = await tx
      .select()
      .from(serviceAccounts)
      .where(and(tenantRow ? eq(serviceAccounts.tenantId, tenantRow.id) : isNull(serviceAccounts.tenantId), eq(serviceAccounts.name, name)));
    if (!account) throw new AppError("not_found", `No service account "${name}" ${tenant ? `in tenant ${tenant}` : "at platform scope"}.`);
    return issueToken(tx, account.principalId, expiresAt, CLI, tenantRow?.id ?? null, now);
  });
}
