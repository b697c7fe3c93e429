import { TenantTabs } from "@/components/tenant-tabs";
import { Badge, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { can } from "@/lib/auth/policy";
import { primaryRoleLabel } from "@/lib/auth/role-labels";
import { assignedOpenItemCount } from "@/lib/reviews/queries";
import type { TenantAccess } from "@/lib/tenancy/queries";
import type { ReactNode } from "react";

/** Title and tabs shared by the tenant's pages. */
export async function TenantHeader({ detail, actions }: { detail: TenantAccess; actions?: ReactNode }) {
  const { tenant } = detail;
  const ctx = await currentContext();
  const tabs: ("overview" | "spend" | "collaborators" | "reviews" | "service-accounts" | "audit")[] = ["overview"];
  if (ctx && can(ctx.actor, "tenant.spend.view", { kind: "tenant", tenantId: tenant.id }, ctx.now)) tabs.push("spend");
  if (detail.canManageMembers) tabs.push("collaborators");
  // Admins run reviews; anyone else sees the tab only while items are assigned to them by name (a sponsor).
  if (ctx && (can(ctx.actor, "access_review.manage", { kind: "tenant", tenantId: tenant.id }, ctx.now) || (await assignedOpenItemCount(ctx, tenant.id)) > 0)) tabs.push("reviews");
  tabs.push("service-accounts");
  if (detail.canSeeAudit) tabs.push("audit");
  return (
    <>
      <PageHeader
        crumbs={[{ href: "/", label: "My tenants" }]}
        title={tenant.name}
        subtitle={
          <>
            Your role: <strong>{primaryRoleLabel(detail.roles)}</strong> · cost centre {tenant.costCentre || "not set"} · {tenant.isolationTier} node pools
            {tenant.status === "disabled" && (
              <>
                {" "}
                · <Badge tone="red">disabled</Badge>
              </>
            )}
          </>
        }
        actions={actions}
      />
      <TenantTabs tenantSlug={tenant.slug} tabs={tabs} />
    </>
  );
}
