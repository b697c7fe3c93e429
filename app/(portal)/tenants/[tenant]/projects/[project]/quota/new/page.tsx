import { notFound, redirect } from "next/navigation";
import { PageHeader, projectCrumbs } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { can, isCollaboratorOn } from "@/lib/auth/policy";
import { requestFormBasis } from "@/lib/quota/request-form-basis";
import { projectDetail } from "@/lib/tenancy/queries";
import { createQuotaRequestAction } from "../actions";
import { RequestFormFor } from "./request-form-for";

type Params = Promise<{ tenant: string; project: string }>;

export async function generateMetadata({ params }: { params: Params }) {
  const { tenant, project } = await params;
  return { title: `Request quota · ${project} · ${tenant}` };
}

export default async function NewQuotaRequestPage({ params }: { params: Params }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const { tenant: tenantSlug, project: projectSlug } = await params;
  const detail = await projectDetail(ctx, tenantSlug, projectSlug);
  if (!detail) notFound();
  const { tenant, project } = detail;
  const resource = { kind: "project", tenantId: tenant.id, projectId: project.id } as const;
  // Viewers, and closed projects: no form (the quota page offers no button either).
  if (!can(ctx.actor, "project.quota.request", resource, ctx.now) || project.archivedAt !== null || tenant.status !== "active") notFound();
  const formBasis = await requestFormBasis(ctx, tenant.slug, project.slug);
  const collaborator = isCollaboratorOn(ctx.actor, tenant.id) && !ctx.actor.isPlatformAdmin;
  const base = `/tenants/${tenant.slug}/projects/${project.slug}`;

  return (
    <>
      <PageHeader
        crumbs={projectCrumbs(tenant, project, collaborator, { href: `${base}/quota`, label: "Quota" })}
        title="Request quota"
        subtitle={
          <>
            More resources for {project.name}, added to its quota permanently or until a date. Small requests are approved automatically; larger ones go to the platform
            admins, who see the cost and the cluster&apos;s capacity.
          </>
        }
      />
      <RequestFormFor ctx={ctx} formBasis={formBasis} action={createQuotaRequestAction} tenant={tenant.slug} project={project.slug} projectName={project.name} />
    </>
  );
}
