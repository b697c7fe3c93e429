import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { ActionDialog } from "@/components/action-dialog";
import { type FieldSpec } from "@/components/action-form";
import { Time } from "@/components/time";
import { Badge, EmptyState } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { tenantServiceAccounts } from "@/lib/tenancy/service-account-queries";
import { tenantAccess } from "@/lib/tenancy/queries";
import { rolesInForce } from "@/lib/tenancy/token-example";
import { createServiceAccountAction } from "../actions";
import { TenantHeader } from "../tenant-header";

export const metadata = { title: "Service accounts" };

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The tenant's service accounts, one compact row each; everything about one is on its own page. */
export default async function ServiceAccountsPage({ params }: { params: Promise<{ tenant: string }> }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const detail = await tenantAccess(ctx, (await params).tenant);
  if (!detail) notFound();
  const { accounts, canManage } = await tenantServiceAccounts(ctx, detail.tenant.slug);
  const t: FieldSpec = { kind: "hidden", name: "tenant", value: detail.tenant.slug };
  const base = `/tenants/${detail.tenant.slug}/service-accounts`;

  return (
    <>
      <TenantHeader
        detail={detail}
        actions={
          canManage ? (
            <ActionDialog
              triggerLabel="New service account"
              title="New service account"
              description="A machine identity owned by the tenant, not by you: it keeps working when people leave. Give it project roles and tokens on its own page."
              submitLabel="Create"
              action={createServiceAccountAction}
              fields={[t, { kind: "text", name: "name", label: "Name", placeholder: "ci-pipeline", hint: "Lower-case letters, digits and hyphens." }, { kind: "textarea", name: "description", label: "Description" }]}
            />
          ) : undefined
        }
      />
      {accounts.length === 0 ? (
        <EmptyState title="No service accounts">
          {canManage ? "Create one for automation (CI pipelines, schedulers) with “New service account”, then give it a role and mint a token on its page." : "Tenant admins create service accounts for automation."}
        </EmptyState>
      ) : (
        <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white shadow-sm" aria-label="Service accounts">
          {accounts.map((a) => {
            const roles = rolesInForce(detail.tenant.slug, a.projectRoles, ctx.now);
            const activeTokens = a.tokens.filter((tok) => tok.state === "active").length;
            return (
              <li key={a.principalId} className="px-5 py-3" data-testid="service-account-row">
                <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
                  <h2 className="text-base font-semibold">
                    <Link href={`${base}/${a.name}`} className="text-brand-700 hover:underline">
                      {a.name}
                    </Link>
                  </h2>
                  <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm text-slate-600">
                    <Badge tone={a.disabled ? "red" : "green"}>{a.disabled ? "disabled" : "active"}</Badge>
                    <span>{roles.length === 0 ? "no project role" : plural(roles.length, "project role", "project roles")}</span>
                    {canManage && <span>{activeTokens === 0 ? "no active token" : plural(activeTokens, "active token", "active tokens")}</span>}
                  </p>
                </div>
                <p className="mt-0.5 text-sm text-slate-600">
                  {a.description || "No description."} Created <Time at={a.createdAt} day />
                  {a.createdBy ? ` by ${a.createdBy}` : ""}.
                </p>
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}
