import { can } from "@/lib/auth/policy";
import { projectClusterObjects } from "@/lib/cluster/queries";
import { clusterRuntime } from "@/lib/cluster/runtime";
import { storedManifestsToYaml } from "@/lib/cluster/yaml";
import { config } from "@/lib/config";
import { yamlDownload } from "@/lib/server/yaml-download";
import { projectDetail } from "@/lib/tenancy/queries";

/** Every object of the project as last rendered, in apply order: one multi-document YAML for kubectl apply -f or a GitOps repository. */
export async function GET(_request: Request, { params }: { params: Promise<{ tenant: string; project: string }> }) {
  const { tenant: tenantSlug, project: projectSlug } = await params;
  return yamlDownload(async (ctx) => {
    const detail = await projectDetail(ctx, tenantSlug, projectSlug);
    if (!detail) return null;
    const { tenant, project } = detail;
    if (!can(ctx.actor, "project.cluster.view", { kind: "project", tenantId: tenant.id, projectId: project.id }, ctx.now)) return null;
    const objects = await projectClusterObjects(ctx.db, project.id);
    const runtime = clusterRuntime(config().cluster);
    const header = [
      `Allot: cluster objects of namespace ${project.namespace} (tenant ${tenant.slug}, project ${project.slug}), in apply order.`,
      runtime.mode === "live" ? `Mode: live, applied to ${runtime.server ?? "the connected cluster"}.` : "Mode: record-only (no cluster connected): plans, not live objects.",
      `Downloaded ${ctx.now.toISOString()}.`,
      ...(objects.length === 0 ? ["Nothing rendered yet: the worker renders this project within a few seconds of a change."] : []),
    ].join("\n");
    return { yaml: storedManifestsToYaml(objects.map((o) => o.manifest), header), filename: `${project.namespace}.yaml` };
  });
}
