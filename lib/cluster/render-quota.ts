import type { ILimitRange } from "kubernetes-models/v1/LimitRange";
import type { IResourceQuota } from "kubernetes-models/v1/ResourceQuota";
import type { DesiredProject, DesiredTenant, EffectiveQuota, RenderConfig } from "./desired-state";
import { projectMeta } from "./meta";
import { bytesQuantity, countQuantity, cpuQuantity, sortedEntries } from "./quantity";

/** The name of a project's namespace ResourceQuota, its hard cap. */
export const PROJECT_QUOTA_NAME = "project-quota";

/**
 * CPU, memory and GPUs: what a pod consumes, and what the priority-scoped
 * quota gates. With Kueue the hard cap is the guarantee plus the burst: Kueue
 * admits borrowed work up to the burst, and pods that bypass Kueue still stop
 * there. Without Kueue nothing borrows, so the cap is the guarantee.
 * Every GPU resource the pools advertise is named (0 when not held), since a
 * quota that does not name a resource does not limit it.
 */
function computeHard(quota: EffectiveQuota, config: RenderConfig): Record<string, string> {
  const burst = config.kueue.enabled ? quota.burst : undefined;
  const cpu = quota.cpuCores + (burst?.cpuCores ?? 0);
  const memory = quota.memoryBytes + (burst?.memoryBytes ?? 0);
  const hard: Record<string, string> = {
    "requests.cpu": cpuQuantity(cpu),
    "limits.cpu": cpuQuantity(cpu),
    "requests.memory": bytesQuantity(memory),
    "limits.memory": bytesQuantity(memory),
  };
  const gpus: Record<string, number> = { ...quota.gpus };
  for (const [name, n] of Object.entries(burst?.gpus ?? {})) gpus[name] = (gpus[name] ?? 0) + n;
  // Extended resources cannot be overcommitted, so quota knows them only as requests.
  for (const [name, count] of sortedEntries(gpus)) hard[`requests.${name}`] = countQuantity(count);
  return hard;
}

export function renderResourceQuota(tenant: DesiredTenant, project: DesiredProject, config: RenderConfig): IResourceQuota {
  const q = project.quota;
  const hard: Record<string, string> = {
    ...computeHard(q, config),
    "requests.storage": bytesQuantity(q.storageBytes),
    persistentvolumeclaims: countQuantity(q.pvcCount),
  };
  for (const [name, count] of sortedEntries({ ...config.objectCounts, ...q.objectCounts })) hard[name] = countQuantity(count);
  return { apiVersion: "v1", kind: "ResourceQuota", metadata: projectMeta(config, tenant, project, PROJECT_QUOTA_NAME), spec: { hard } };
}

/**
 * High priority classes are listed under `limitedResources` in the API
 * server's ResourceQuota admission config, so a pod may use one only where a
 * quota scoped to it exists. Classes the project is not granted get a quota of
 * zero (refused); granted ones get the project's own amounts. Without it one
 * tenant could preempt another's serving pods.
 */
export function renderPriorityQuotas(tenant: DesiredTenant, project: DesiredProject, config: RenderConfig): IResourceQuota[] {
  const high = [...new Set(config.highPriorityClasses)].sort();
  const allowed = new Set(project.allowedPriorityClasses ?? []);
  const granted = high.filter((c) => allowed.has(c));
  const denied = high.filter((c) => !allowed.has(c));
  const scoped = (name: string, classes: string[], hard: Record<string, string>): IResourceQuota => ({
    apiVersion: "v1",
    kind: "ResourceQuota",
    metadata: projectMeta(config, tenant, project, name),
    spec: { hard, scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: classes }] } },
  });

  const out: IResourceQuota[] = [];
  if (denied.length > 0) {
    const zero = Object.fromEntries(Object.keys(computeHard(project.quota, config)).map((k) => [k, "0"]));
    out.push(scoped("high-priority-denied", denied, { pods: "0", ...zero }));
  }
  if (granted.length > 0) out.push(scoped("high-priority-granted", granted, computeHard(project.quota, config)));
  return out;
}

/** Defaults for containers that state no requests or limits, so every pod is counted by the quota (and admitted by it). */
export function renderLimitRange(tenant: DesiredTenant, project: DesiredProject, config: RenderConfig): ILimitRange {
  const d = config.containerDefaults;
  return {
    apiVersion: "v1",
    kind: "LimitRange",
    metadata: projectMeta(config, tenant, project, "container-defaults"),
    spec: { limits: [{ type: "Container", defaultRequest: { ...d.request }, default: { ...d.limit } }] },
  };
}
