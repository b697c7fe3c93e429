import { createTwoFilesPatch } from "diff";
import type { Database } from "@/db/client";
import type { EffectiveQuota } from "@/lib/cluster/desired-state";
import { loadDesiredTenant } from "@/lib/cluster/desired-from-db";
import type { ClusterSettings } from "@/lib/config";
import { renderTarget, targetOf } from "@/lib/cluster/targets";
import { manifestsToYaml } from "@/lib/cluster/yaml";

/**
 * The exact change an approval makes to the cluster: the project's rendered
 * objects now and with the quota after approval, as a unified diff of their
 * YAML (only objects that differ). With Kueue on, the tenant's ClusterQueue
 * changes too; it is diffed the same way.
 */
export async function quotaChangeDiff(db: Database, settings: ClusterSettings, tenantId: string, projectId: string, after: EffectiveQuota, now: Date): Promise<string> {
  const loaded = await loadDesiredTenant(db, tenantId, settings, now);
  if (!loaded) return "";
  const project = loaded.projects.find((p) => p.id === projectId);
  if (!project) return "";
  const changed = { ...loaded, projects: loaded.projects.map((p) => (p.id === projectId && !p.closed ? { ...p, quota: after } : p)) };
  const patches: string[] = [];
  for (const [before, next] of [
    [targetOf(loaded, projectId)!, targetOf(changed, projectId)!],
    [targetOf(loaded, null)!, targetOf(changed, null)!],
  ] as const) {
    const a = await renderTarget(before, settings.render);
    const b = await renderTarget(next, settings.render);
    const key = (o: { kind: string; metadata?: { name?: string; namespace?: string } }) => `${o.kind}/${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
    const old = new Map(a.map((o) => [key(o), manifestsToYaml([o])]));
    for (const o of b) {
      const was = old.get(key(o)) ?? "";
      const now = manifestsToYaml([o]);
      if (was === now) continue;
      const name = `${o.kind} ${o.metadata?.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata?.name ?? ""}`;
      patches.push(createTwoFilesPatch(`${name} (now)`, `${name} (after approval)`, was, now, undefined, undefined, { context: 3 }).replace(/^=+\n/, ""));
    }
  }
  return patches.join("\n");
}
