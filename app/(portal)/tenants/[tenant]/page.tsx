import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { CreateProjectDialog } from "@/components/create-project-dialog";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { primaryRoleLabel } from "@/lib/auth/role-labels";
import { tenantDetail } from "@/lib/tenancy/queries";
import { createProjectAction } from "./actions";

const TENANT_ROLE_LABEL = { tenant_admin: "Tenant admin", member: "Member", viewer: "Viewer" } as const;

export async function generateMetadata({ params }: { params: Promise<{ tenant: string }> }) {
  return { title: (await params).tenant };
}

export default async function TenantPage({ params }: { params: Promise<{ tenant: string }> }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const detail = await tenantDetail(ctx, (await params).tenant);
  if (!detail) notFound();
  const { tenant, members, projects } = detail;

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
        actions={detail.canCreateProject ? <CreateProjectDialog tenantSlug={tenant.slug} action={createProjectAction} /> : undefined}
      />
      <div className="space-y-6">
        <Card title="Projects" description="Each project is one namespace on the cluster.">
          {projects.length === 0 ? (
            <EmptyState title="No projects yet">
              {detail.canCreateProject ? "Create the first project with “New project”; it becomes a namespace for this tenant." : "A tenant admin creates projects; ask one of the admins below."}
            </EmptyState>
          ) : (
            <DataTable caption={`Projects of ${tenant.name}`} columns={["Project", "Namespace", "Your access"]}>
              {projects.map((p) => (
                <tr key={p.id}>
                  <Cell>
                    {p.canOpen ? (
                      <Link href={`/tenants/${tenant.slug}/projects/${p.slug}`} className="font-medium text-slate-900 hover:underline">
                        {p.name}
                      </Link>
                    ) : (
                      <span className="font-medium text-slate-700">{p.name}</span>
                    )}
                    {p.description && <p className="text-xs text-slate-500">{p.description}</p>}
                  </Cell>
                  <Cell className="font-mono text-xs text-slate-600">{p.namespace}</Cell>
                  <Cell>{p.canOpen ? <Badge tone="blue">{primaryRoleLabel(p.roles)}</Badge> : <span className="text-xs text-slate-500">No access — ask a tenant admin</span>}</Cell>
                </tr>
              ))}
            </DataTable>
          )}
        </Card>
        <Card title="Members" description="Who belongs to this tenant and their role here.">
          {members.length === 0 ? (
            <EmptyState title="No members yet">This tenant has no members. A platform admin adds its first tenant admin.</EmptyState>
          ) : (
            <DataTable caption={`Members of ${tenant.name}`} columns={["Name", "Email", "Role"]}>
              {members.map((m) => (
                <tr key={m.principalId}>
                  <Cell>
                    {m.displayName} {m.kind === "service_account" && <Badge>service account</Badge>} {m.disabled && <Badge tone="red">disabled</Badge>}
                  </Cell>
                  <Cell className="text-slate-600">{m.email ?? "—"}</Cell>
                  <Cell>
                    <Badge tone={m.role === "tenant_admin" ? "blue" : "slate"}>{TENANT_ROLE_LABEL[m.role]}</Badge>
                  </Cell>
                </tr>
              ))}
            </DataTable>
          )}
        </Card>
      </div>
    </>
  );
}
