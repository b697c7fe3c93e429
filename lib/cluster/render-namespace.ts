import type { INamespace } from "kubernetes-models/v1/Namespace";
import type { DesiredProject, DesiredTenant, RenderConfig } from "./desired-state";
import { labelValue, ownerLabels } from "./meta";

/**
 * The project's namespace: owner and cost-centre labels, and Pod Security
 * Admission at `restricted`, enforce pinned to a version (audit and warn too,
 * so violations show up in the audit log and in kubectl output).
 *
 * Dedicated tier. A namespace cannot carry a node selector in the core API, and
 * a LimitRange cannot set one. We use the PodNodeSelector and
 * PodTolerationRestriction admission plugins' namespace annotations
 * (`scheduler.alpha.kubernetes.io/node-selector`, `.../defaultTolerations`):
 * the API server then merges the tenant's node pool into every pod and refuses
 * pods whose own selector conflicts with it. (No tolerationsWhitelist: it would
 * also refuse the tolerations other admission plugins add.) The plugins must be enabled on the API server
 * (managed clusters differ); where Kueue is on, the tenant's ResourceFlavor
 * carries the same nodeLabels and tolerations (render-tenant.ts), which Kueue
 * injects at admission, so the pool holds either way. A RuntimeClass cannot be
 * defaulted by any built-in admission, so it is recorded as a label for the
 * platform's policy engine (Kyverno/Gatekeeper) to enforce.
 */
export function renderNamespace(tenant: DesiredTenant, project: DesiredProject, config: RenderConfig): INamespace {
  const p = config.labelPrefix;
  const labels: Record<string, string> = {
    ...ownerLabels(config, tenant, project),
    [`${p}/cost-centre`]: labelValue(tenant.costCentre),
    [`${p}/isolation-tier`]: tenant.isolationTier,
    "pod-security.kubernetes.io/enforce": "restricted",
    "pod-security.kubernetes.io/enforce-version": config.podSecurityVersion,
    "pod-security.kubernetes.io/audit": "restricted",
    "pod-security.kubernetes.io/audit-version": config.podSecurityVersion,
    "pod-security.kubernetes.io/warn": "restricted",
    "pod-security.kubernetes.io/warn-version": config.podSecurityVersion,
  };
  // The label keeps a cleaned cost centre; the annotation keeps it as typed.
  const annotations: Record<string, string> = {
    [`${p}/cost-centre`]: tenant.costCentre,
    [`${p}/tenant-name`]: tenant.name,
  };

  if (tenant.isolationTier === "dedicated") {
    const pool = tenant.nodePool;
    if (!pool) throw new Error(`tenant ${tenant.slug} is dedicated but has no node pool`);
    labels[`${p}/node-pool`] = pool.name;
    annotations["scheduler.alpha.kubernetes.io/node-selector"] = Object.entries(pool.nodeSelector)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}=${v}`)
      .join(",");
    annotations["scheduler.alpha.kubernetes.io/defaultTolerations"] = JSON.stringify(pool.tolerations);
  }
  if (tenant.runtimeClass) labels[`${p}/runtime-class`] = tenant.runtimeClass;

  return { apiVersion: "v1", kind: "Namespace", metadata: { name: project.namespace, labels, annotations } };
}
