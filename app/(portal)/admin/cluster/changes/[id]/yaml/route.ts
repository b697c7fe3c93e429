import { can } from "@/lib/auth/policy";
import { failureAdvice } from "@/lib/cluster/failure-advice";
import { clusterChangeById, type ChangeListItem } from "@/lib/cluster/queries";
import { storedManifestsToYaml } from "@/lib/cluster/yaml";
import { yamlDownload } from "@/lib/server/yaml-download";

/** The objects one change rendered, with a header naming the change, its target and mode, and what it deleted (or would). */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return yamlDownload(async (ctx) => {
    if (!can(ctx.actor, "cluster.view", { kind: "platform" }, ctx.now)) return null;
    if (!/^[1-9]\d{0,15}$/.test(id)) return null;
    const change = await clusterChangeById(ctx.db, Number(id));
    if (!change) return null;
    return { yaml: storedManifestsToYaml(change.objects ?? [], changeHeader(change)), filename: `allot-change-${change.id}.yaml` };
  });
}

function changeHeader(c: ChangeListItem): string {
  const target = c.namespace ? `${c.tenantSlug} / ${c.namespace}` : `${c.tenantSlug} / tenant-wide (Kueue)`;
  const mode =
    c.mode === "live" ? "live (applied to the connected cluster)" : c.mode === "record-only" ? "record-only (no cluster connected: a plan, not live objects)" : "not yet taken by a worker";
  const deletions = c.deletions ?? [];
  const advice = failureAdvice(c);
  return [
    `Allot cluster change #${c.id}`,
    `Target: ${target}`,
    `Mode: ${mode}`,
    `Status: ${c.status}, ${c.attempts} attempt${c.attempts === 1 ? "" : "s"}`,
    `Reasons: ${c.reasons.join("; ")}`,
    ...(c.lastError ? [`Last error: ${c.lastError}`] : []),
    ...(advice ? [`What to do: ${advice.text}`] : []),
    deletions.length === 0
      ? "Deletions: none"
      : `Deletions (${c.mode === "live" ? "deleted" : "to delete"}):\n${deletions.map((d) => `  - ${d.apiVersion} ${d.kind} ${d.namespace ? `${d.namespace}/` : ""}${d.name}`).join("\n")}`,
    ...(c.objects === null ? ["No objects rendered yet."] : []),
  ].join("\n");
}
