import type { INamespace } from "kubernetes-models/v1/Namespace";
import type { DesiredProject, DesiredTenant, RenderConfig } from "./desired-state";

export type ObjectMeta = NonNullable<INamespace["metadata"]>;

/**
 * Labels every owned object carries. managed-by is how the applier finds
 * objects the portal owns (and deletes those no longer desired); tenant and
 * project say whose they are.
 */
export function ownerLabels(config: RenderConfig, tenant: DesiredTenant, project?: DesiredProject): Record<string, string> {
  const labels: Record<string, string> = {
    "app.kubernetes.io/managed-by": config.managedBy,
    [`${config.labelPrefix}/tenant`]: tenant.slug,
  };
  if (project) labels[`${config.labelPrefix}/project`] = project.slug;
  return labels;
}

/**
 * Labels of the platform's own objects (the Kueue ResourceFlavors every
 * tenant's queues name): no tenant label, so no tenant's pruning selects
 * them, and a scope label the platform target's pruning selects by.
 */
export function platformLabels(config: RenderConfig): Record<string, string> {
  return { "app.kubernetes.io/managed-by": config.managedBy, [`${config.labelPrefix}/scope`]: "platform" };
}

export function projectMeta(config: RenderConfig, tenant: DesiredTenant, project: DesiredProject, name: string): ObjectMeta {
  return { name, namespace: project.namespace, labels: ownerLabels(config, tenant, project) };
}

/** A free-text value (a cost centre) made fit for a label value: 63 characters of [A-Za-z0-9-_.], alphanumeric at both ends. */
export function labelValue(text: string): string {
  return text
    .replace(/[^A-Za-z0-9_.-]+/g, "-")
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "");
}

/** FNV-1a, 32 bits: a short stable suffix that keeps names unique when subjects are cut or cleaned. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** A DNS-1123 label from arbitrary text, at most `max` characters. */
export function dnsLabel(text: string, max: number): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .slice(0, max)
    .replace(/^-+|-+$/g, "");
}
