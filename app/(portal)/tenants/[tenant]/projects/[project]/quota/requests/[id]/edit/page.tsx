import { notFound, redirect } from "next/navigation";
import { PageHeader, projectCrumbs } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { isCollaboratorOn } from "@/lib/auth/policy";
import { dateInputValue } from "@/lib/format";
import { GiB } from "@/lib/quota/amounts";
import { requestDetail } from "@/lib/quota/queries";
import { requestFormBasis } from "@/lib/quota/request-form-basis";
import { projectDetail } from "@/lib/tenancy/queries";
import { editQuotaRequestAction } from "../../../actions";
import type { Values } from "../../../new/request-form";
import { RequestFormFor } from "../../../new/request-form-for";

type Params = Promise<{ tenant: string; project: string; id: string }>;
const DAY = 86_400_000;

export const metadata = { title: "Edit quota request" };

/** A number as the form field takes it: empty for none. */
const field = (n: number) => (n > 0 ? String(n) : "");

export default async function EditQuotaRequestPage({ params }: { params: Params }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const { tenant: tenantSlug, project: projectSlug, id } = await params;
  const [detail, project] = await Promise.all([requestDetail(ctx, id, { tenant: tenantSlug, project: projectSlug }), projectDetail(ctx, tenantSlug, projectSlug)]);
  // Only its requester edits it, and only while it is pending: for anyone else there is no such page.
  if (!detail?.conversation.canEdit || !project) notFound();
  const r = detail.request;
  const formBasis = await requestFormBasis(ctx, r.tenantSlug, r.projectSlug);
  const base = `/tenants/${r.tenantSlug}/projects/${r.projectSlug}`;
  const requestHref = `${base}/quota/requests/${r.id}`;
  const collaborator = isCollaboratorOn(ctx.actor, r.tenantId) && !ctx.actor.isPlatformAdmin;
  const values: Values = {
    // Each GPU model's line as a row; a request without GPUs starts with one empty row, as a new request does.
    gpus: r.amounts.gpus.length > 0 ? r.amounts.gpus.map((g) => ({ model: g.model, count: field(g.count), burst: field(g.burst) })) : [{ model: "", count: "", burst: "" }],
    cpuCores: field(r.amounts.cpuCores),
    cpuBurst: field(r.amounts.cpuBurst ?? 0),
    memory: field(r.amounts.memoryBytes / GiB),
    memoryBurst: field((r.amounts.memoryBurstBytes ?? 0) / GiB),
    storage: field(r.amounts.storageBytes / GiB),
    duration: r.endsAt ? "until" : "permanent",
    endsAt: r.endsAt ? dateInputValue(r.endsAt) : dateInputValue(new Date(ctx.now.getTime() + 30 * DAY)),
    justification: r.justification,
  };

  return (
    <>
      <PageHeader
        crumbs={projectCrumbs(project.tenant, project.project, collaborator, { href: `${base}/quota`, label: "Quota" }, { href: requestHref, label: "Quota request" })}
        title="Edit quota request"
        subtitle={
          <>
            Change what you ask for while nobody has decided. The request keeps what it said before (revision {r.revision}), and the platform admin deciding sees what you
            changed; an approval of the earlier revision no longer counts.
          </>
        }
      />
      <RequestFormFor
        ctx={ctx}
        formBasis={formBasis}
        action={editQuotaRequestAction}
        tenant={r.tenantSlug}
        project={r.projectSlug}
        projectName={r.projectName}
        defaultDate={values.endsAt}
        editing={{ values, requestId: r.id, version: r.version, nextRevision: r.revision + 1, cancelHref: requestHref }}
      />
    </>
  );
}
