import type { IClusterRole } from "kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole";
import { Document, isMap, isSeq } from "yaml";
import { CLUSTER_PERMISSIONS, type ClusterPermission } from "./permissions";

/** Where `npm run deploy:rbac` writes the ClusterRole, relative to the repository. */
export const PORTAL_CLUSTER_ROLE_FILE = "deploy/base/clusterrole.yaml";

/** The portal's own ClusterRole: one rule per permission, in the list's order, never a wildcard. */
export function portalClusterRole(permissions: readonly ClusterPermission[] = CLUSTER_PERMISSIONS, name = "allot"): IClusterRole {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name, labels: { "app.kubernetes.io/name": "allot", "app.kubernetes.io/component": "portal" } },
    rules: permissions.map((p) => ({
      apiGroups: [p.apiGroup],
      resources: [p.resource],
      ...(p.resourceNames ? { resourceNames: [...p.resourceNames] } : {}),
      verbs: [...p.verbs],
    })),
  };
}

/** The ClusterRole as the committed YAML file: a header saying where it comes from, and each rule's reason above it. */
export function portalClusterRoleYaml(permissions: readonly ClusterPermission[] = CLUSTER_PERMISSIONS): string {
  const doc = new Document(portalClusterRole(permissions));
  doc.commentBefore = [
    " Generated from lib/cluster/permissions.ts by `npm run deploy:rbac`; do not edit by hand",
    " (a unit test fails when this file and the list differ).",
    " Exactly the calls the reconcile worker, the drift check and the node import make.",
  ].join("\n");
  const rules = doc.get("rules", true);
  if (isSeq(rules)) {
    rules.items.forEach((item, i) => {
      if (isMap(item)) item.commentBefore = ` ${permissions[i]!.why}`;
    });
  }
  return doc.toString({ lineWidth: 0 });
}
