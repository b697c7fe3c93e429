import Link from "next/link";
import { redirect } from "next/navigation";
import { Badge, Card, EmptyState, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { can } from "@/lib/auth/policy";
import { primaryRoleLabel } from "@/lib/auth/role-labels";
import { reachableTenants } from "@/lib/tenancy/queries";
import { Time } from "@/components/time";

export const metadata = { title: "My tenants" };

export default async function HomePage() {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const tenants = await reachableTenants(ctx);
  const isPlatformAdmin = can(ctx.actor, "platform.view", { kind: "platform" }, ctx.now);
  const grantExpiry = new Map(ctx.actor.projectGrants.map((g) => [g.projectId, g.expiresAt]));

  return (
    <>
      <PageHeader title={`Welcome, ${ctx.actor.displayName.split(" ")[0]}`} subtitle="The tenants and projects you can reach, and your role in each." />
      {isPlatformAdmin && (
        <div className="mb-6 rounded-lg border border-brand-100 bg-brand-50 px-5 py-3 text-sm text-brand-900">
          You are a platform admin. <Link href="/admin" className="font-medium underline">Open the admin area</Link> to see every tenant.
        </div>
      )}
      <p className="mb-6 text-sm text-slate-600">
        Starting a new team on the cluster?{" "}
        <Link href="/tenant-requests" className="font-medium text-brand-700 hover:underline">
          Ask for a tenant
        </Link>
        .
      </p>
      {tenants.length === 0 ? (
        <EmptyState title="You are not part of any tenant yet">
          {isPlatformAdmin
            ? "Create a tenant from the admin area, or ask a tenant admin to add you."
            : "Ask a tenant admin to add you to their tenant or invite you to a project. Once they do, it appears here."}
        </EmptyState>
      ) : (
        <div className="grid gap-6 md:grid-cols-2">
          {tenants.map((t) => {
            // Platform admin reaches everything; on the home page show how the person belongs.
            const tenantRoles = t.roles.filter((r) => r !== "platform_admin");
            const viaMembership = tenantRoles.length > 0;
            return (
              <Card
                key={t.id}
                title={t.name}
                description={
                  viaMembership ? (
                    <Link href={`/tenants/${t.slug}`} className="text-brand-700 hover:underline">
                      Open tenant
                    </Link>
                  ) : (
                    "You reach this tenant only through a project grant."
                  )
                }
                actions={<Badge tone="blue">{viaMembership ? primaryRoleLabel(tenantRoles) : "Collaborator"}</Badge>}
              >
                {t.projects.length === 0 ? (
                  <p className="text-sm text-slate-600">
                    No projects you can open yet. Ask a tenant admin for access to a project.
                  </p>
                ) : (
                  <ul className="divide-y divide-slate-100" aria-label={`Projects in ${t.name}`}>
                    {t.projects.map((p) => {
                      const expiry = grantExpiry.get(p.id);
                      const roles = p.roles.filter((r) => r !== "platform_admin");
                      return (
                        <li key={p.id} className="flex items-center justify-between gap-3 py-2">
                          <div>
                            <Link href={`/tenants/${t.slug}/projects/${p.slug}`} className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-900">
                              {p.name}
                            </Link>
                            <p className="font-mono text-xs text-slate-500">{p.namespace}</p>
                          </div>
                          <div className="flex flex-col items-end gap-1">
                            <Badge>{primaryRoleLabel(roles, { collaborator: !viaMembership })}</Badge>
                            {expiry && <span className="text-xs text-amber-700">until <Time at={expiry} day /></span>}
                          </div>
                        </li>
                      );
                    })}
                  </ul>
                )}
              </Card>
            );
          })}
        </div>
      )}
    </>
  );
}
