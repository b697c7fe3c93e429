import { notFound, redirect } from "next/navigation";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState, formatDate, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { isCollaboratorOn } from "@/lib/auth/policy";
import { primaryRoleLabel } from "@/lib/auth/role-labels";
import { projectDetail } from "@/lib/tenancy/queries";

type Params = Promise<{ tenant: string; project: string }>;

export async function generateMetadata({ params }: { params: Params }) {
  const { tenant, project } = await params;
  return { title: `${project} · ${tenant}` };
}

export default async function ProjectPage({ params }: { params: Params }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const { tenant: tenantSlug, project: projectSlug } = await params;
  const detail = await projectDetail(ctx, tenantSlug, projectSlug);
  if (!detail) notFound();
  const { tenant, project, access } = detail;
  const collaborator = isCollaboratorOn(ctx.actor, tenant.id) && !ctx.actor.isPlatformAdmin;

  return (
    <>
      <PageHeader
        crumbs={collaborator ? [{ href: "/", label: "My tenants" }] : [{ href: "/", label: "My tenants" }, { href: `/tenants/${tenant.slug}`, label: tenant.name }]}
        title={project.name}
        subtitle={
          <>
            {tenant.name} · namespace <code className="font-mono text-xs">{project.namespace}</code> · your role:{" "}
            <strong>{primaryRoleLabel(detail.roles, { collaborator })}</strong>
          </>
        }
      />
      {project.description && <p className="mb-6 max-w-prose text-sm text-slate-700">{project.description}</p>}
      <Card title="Who has access" description="Everyone who can act in this project, and how their access came.">
        {access.length === 0 ? (
          <EmptyState title="Nobody has access yet">Tenant admins can grant roles on this project.</EmptyState>
        ) : (
          <DataTable caption={`Access to ${project.name}`} columns={["Name", "Role", "Through", "Expires", "Granted by"]}>
            {access.map((a) => (
              <tr key={`${a.principalId}-${a.via}`}>
                <Cell>
                  <span className="font-medium">{a.displayName}</span>
                  {a.email && <p className="text-xs text-slate-500">{a.email}</p>}
                </Cell>
                <Cell>
                  <Badge tone={a.role === "tenant admin" ? "blue" : "slate"}>{a.role}</Badge> {a.collaborator && <Badge tone="amber">external collaborator</Badge>}
                  {a.kind === "service_account" && <Badge>service account</Badge>}
                </Cell>
                <Cell className="text-slate-600">{a.via}</Cell>
                <Cell className="text-slate-600">{a.expiresAt ? formatDate(a.expiresAt) : "never"}</Cell>
                <Cell className="text-slate-600">{a.grantedBy ?? "—"}</Cell>
              </tr>
            ))}
          </DataTable>
        )}
      </Card>
      <p className="mt-6 text-xs text-slate-500">Quota, cluster objects and spend for this project are not available yet.</p>
    </>
  );
}
