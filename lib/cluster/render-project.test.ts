import { describe, expect, it } from "vitest";
import type { INetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import type { IResourceQuota } from "kubernetes-models/v1/ResourceQuota";
import type { IRoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding";
import type { INamespace } from "kubernetes-models/v1/Namespace";
import type { IServiceAccount } from "kubernetes-models/v1/ServiceAccount";
import { renderConfig, type DesiredProject, type DesiredTenant, type RenderConfig } from "./desired-state";
import { dedicatedTenant, fullConfig, migProject, noGpuProject, sharedTenant } from "./fixtures";
import { renderProjectObjects, renderTenant, type ClusterObject } from "./render-project";
import { validateObjects } from "./validate";

type Shape = { name: string; tenant: DesiredTenant; project: DesiredProject; config: RenderConfig };

const minimalConfig = renderConfig();
const shapes: Shape[] = [
  { name: "shared, no GPU, Kueue off, minimal config", tenant: sharedTenant, project: noGpuProject, config: minimalConfig },
  { name: "shared, no GPU, Kueue on", tenant: sharedTenant, project: noGpuProject, config: fullConfig },
  { name: "dedicated, MIG, Kueue on (v1beta2)", tenant: dedicatedTenant, project: migProject, config: fullConfig },
  { name: "dedicated, MIG, Kueue on (v1beta1)", tenant: dedicatedTenant, project: migProject, config: { ...fullConfig, kueue: { ...fullConfig.kueue, apiVersion: "v1beta1" } } },
  { name: "dedicated, MIG, Kueue off", tenant: dedicatedTenant, project: migProject, config: { ...fullConfig, kueue: { ...fullConfig.kueue, enabled: false } } },
];

const ofKind = <T>(objects: ClusterObject[], kind: string) => objects.filter((o) => o.kind === kind) as T[];
const policy = (objects: ClusterObject[], name: string) => ofKind<INetworkPolicy>(objects, "NetworkPolicy").find((p) => p.metadata?.name === name);

describe.each(shapes)("renderProjectObjects: $name", ({ tenant, project, config }) => {
  const objects = renderProjectObjects(tenant, project, config);
  const p = config.labelPrefix;

  it("passes schema validation", async () => {
    await expect(validateObjects(objects)).resolves.toBeUndefined();
  });

  it("is deterministic, so applying twice changes nothing", () => {
    expect(JSON.stringify(renderProjectObjects(structuredClone(tenant), structuredClone(project), structuredClone(config)))).toBe(JSON.stringify(objects));
  });

  it("labels every object with managed-by, tenant and project", () => {
    for (const o of objects) {
      expect(o.metadata?.labels).toMatchObject({ "app.kubernetes.io/managed-by": "allot", [`${p}/tenant`]: tenant.slug, [`${p}/project`]: project.slug });
    }
  });

  it("puts every namespaced object in the project's namespace", () => {
    for (const o of objects.filter((o) => o.kind !== "Namespace")) expect(o.metadata?.namespace).toBe(project.namespace);
  });

  it("names the namespace as a DNS-1123 label of at most 63 characters, and enforces PSS restricted at a pinned version", () => {
    const [ns] = ofKind<INamespace>(objects, "Namespace");
    expect(objects[0]).toBe(ns);
    expect(ns!.metadata!.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(ns!.metadata!.name!.length).toBeLessThanOrEqual(63);
    expect(ns!.metadata!.labels).toMatchObject({
      "pod-security.kubernetes.io/enforce": "restricted",
      "pod-security.kubernetes.io/enforce-version": config.podSecurityVersion,
      "pod-security.kubernetes.io/audit": "restricted",
      "pod-security.kubernetes.io/warn": "restricted",
      [`${p}/cost-centre`]: expect.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/) as unknown,
    });
  });

  it("quotas cpu, memory, every GPU resource, storage and PVC count", () => {
    const quota = ofKind<IResourceQuota>(objects, "ResourceQuota").find((q) => q.metadata?.name === "project-quota")!;
    const hard = quota.spec!.hard!;
    for (const key of ["requests.cpu", "limits.cpu", "requests.memory", "limits.memory", "requests.storage", "persistentvolumeclaims", "pods", "services", "configmaps", "secrets"]) {
      expect(hard[key], key).toBeDefined();
    }
    for (const [gpu, n] of Object.entries(project.quota.gpus)) expect(hard[`requests.${gpu}`]).toBe(String(n));
    expect(hard["services.loadbalancers"]).toBe("0");
  });

  it("denies by default in both directions", () => {
    const deny = policy(objects, "default-deny")!;
    expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ["Ingress", "Egress"] });
  });

  it("allows DNS only to kube-dns in kube-system, on port 53", () => {
    const dns = policy(objects, "allow-dns")!;
    expect(dns.spec!.policyTypes).toEqual(["Egress"]);
    expect(dns.spec!.egress).toEqual([
      {
        to: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } }, podSelector: { matchLabels: { "k8s-app": "kube-dns" } } }],
        ports: [
          { protocol: "UDP", port: 53 },
          { protocol: "TCP", port: 53 },
        ],
      },
    ]);
  });

  it("never selects all namespaces: no peer has an empty or missing-label namespaceSelector", () => {
    for (const np of ofKind<INetworkPolicy>(objects, "NetworkPolicy")) {
      const peers = [...(np.spec!.ingress ?? []).flatMap((r) => r.from ?? []), ...(np.spec!.egress ?? []).flatMap((r) => r.to ?? [])];
      for (const peer of peers) {
        expect(peer.ipBlock, np.metadata!.name).toBeUndefined();
        if (peer.namespaceSelector) {
          const ns = peer.namespaceSelector;
          expect(Object.keys(ns.matchLabels ?? {}).length + (ns.matchExpressions ?? []).length, np.metadata!.name).toBeGreaterThan(0);
        }
      }
    }
  });

  it("binds roles in the namespace only, never cluster-wide", () => {
    expect(objects.some((o) => (o.kind as string) === "ClusterRoleBinding" || (o.kind as string) === "ClusterRole")).toBe(false);
    for (const rb of ofKind<IRoleBinding>(objects, "RoleBinding")) {
      expect(["admin", "edit", "view"]).toContain(rb.roleRef.name);
      for (const s of rb.subjects ?? []) if (s.kind === "ServiceAccount") expect(s.namespace).toBe(project.namespace);
    }
  });

  it("gives service accounts no secrets", () => {
    for (const sa of ofKind<IServiceAccount>(objects, "ServiceAccount")) expect(sa.secrets).toBeUndefined();
  });

  it("adds a default LocalQueue on the project's guaranteed ClusterQueue exactly when Kueue is on (no burst: no preemptible queue)", () => {
    const queues = objects.filter((o) => o.kind === "LocalQueue");
    expect(queues.length).toBe(config.kueue.enabled ? 1 : 0);
    if (config.kueue.enabled) expect(queues[0]).toMatchObject({ metadata: { name: "default" }, spec: { clusterQueue: project.namespace } });
  });
});

describe("renderProjectObjects: specifics", () => {
  it("opens ingress from gateway and monitoring and egress to shared services only when configured", () => {
    const minimal = renderProjectObjects(sharedTenant, noGpuProject, renderConfig());
    expect(ofKind<INetworkPolicy>(minimal, "NetworkPolicy").map((n) => n.metadata!.name)).toEqual(["default-deny", "allow-same-namespace", "allow-dns"]);
    const full = renderProjectObjects(sharedTenant, noGpuProject, fullConfig);
    expect(policy(full, "allow-from-gateway")!.spec!.ingress).toEqual([{ from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "gateway" } } }] }]);
    expect(policy(full, "allow-from-monitoring")!.spec!.ingress![0]!.from![0]!.namespaceSelector!.matchLabels).toEqual({ "kubernetes.io/metadata.name": "monitoring" });
    expect(policy(full, "allow-shared-services")!.spec!.egress).toEqual([{ to: [{ namespaceSelector: { matchLabels: { "allot.dev/shared-service": "true" } } }] }]);
    const same = policy(full, "allow-same-namespace")!.spec!;
    expect(same.ingress).toEqual([{ from: [{ podSelector: {} }] }]);
    expect(same.egress).toEqual([{ to: [{ podSelector: {} }] }]);
  });

  it("refuses an empty shared-services selector instead of opening egress to every namespace", () => {
    expect(() => renderProjectObjects(sharedTenant, noGpuProject, { ...fullConfig, sharedServicesSelector: {} })).toThrow(/empty selector/);
  });

  it("maps roles to admin/edit/view, users as User, IdP groups as Group and service accounts as ServiceAccount; a plain tenant member gets nothing", () => {
    const shared = ofKind<IRoleBinding>(renderProjectObjects(sharedTenant, noGpuProject, fullConfig), "RoleBinding");
    expect(shared.map((rb) => [rb.roleRef.name, rb.subjects])).toEqual([
      ["admin", [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice@acme.example" }]],
      ["view", [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "bob@acme.example" }]],
    ]);
    const mig = ofKind<IRoleBinding>(renderProjectObjects(dedicatedTenant, migProject, fullConfig), "RoleBinding");
    expect(mig.map((rb) => rb.subjects![0])).toContainEqual({ kind: "ServiceAccount", name: "trainer", namespace: "vision--training" });
    // An IdP group is bound as the API server's OIDC authenticator names it: a Group, exactly as the claim spells it.
    const group = mig.find((rb) => rb.subjects![0]!.kind === "Group")!;
    expect(group.subjects).toEqual([{ kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "oidc:Vision Trainers" }]);
    expect(group.metadata!.name).toMatch(/^edit-group-oidc-vision-trainers-[0-9a-f]{8}$/);
    expect(mig.every((rb) => rb.roleRef.name === "edit")).toBe(true);
  });

  it("fills the workload identity template on service accounts", () => {
    const [sa] = ofKind<IServiceAccount>(renderProjectObjects(dedicatedTenant, migProject, fullConfig), "ServiceAccount");
    expect(sa!.metadata!.annotations).toEqual({ "eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/allot-vision-training-trainer" });
  });

  it("zeroes high priority classes a project is not granted and grants the rest its own amounts", () => {
    const quotas = ofKind<IResourceQuota>(renderProjectObjects(dedicatedTenant, migProject, fullConfig), "ResourceQuota");
    const denied = quotas.find((q) => q.metadata!.name === "high-priority-denied")!;
    expect(denied.spec!.scopeSelector!.matchExpressions).toEqual([{ scopeName: "PriorityClass", operator: "In", values: ["system-critical-ml"] }]);
    expect(new Set(Object.values(denied.spec!.hard!))).toEqual(new Set(["0"]));
    expect(denied.spec!.hard!["requests.nvidia.com/mig-1g.10gb"]).toBe("0");
    const granted = quotas.find((q) => q.metadata!.name === "high-priority-granted")!;
    expect(granted.spec!.scopeSelector!.matchExpressions![0]!.values).toEqual(["serving-high"]);
    expect(granted.spec!.hard).toMatchObject({ "requests.cpu": "64", "requests.memory": "512Gi", "requests.nvidia.com/gpu": "4" });

    const none = ofKind<IResourceQuota>(renderProjectObjects(sharedTenant, noGpuProject, fullConfig), "ResourceQuota");
    expect(none.map((q) => q.metadata!.name)).toEqual(["project-quota", "high-priority-denied"]);
    expect(none[1]!.spec!.scopeSelector!.matchExpressions![0]!.values).toEqual(["serving-high", "system-critical-ml"]);
  });

  it("writes quantities exactly: fractional CPU in millicores, memory in binary units", () => {
    const [quota] = ofKind<IResourceQuota>(renderProjectObjects(sharedTenant, noGpuProject, fullConfig), "ResourceQuota");
    expect(quota!.spec!.hard).toMatchObject({ "requests.cpu": "2500m", "limits.memory": "8Gi", "requests.storage": "20Gi", persistentvolumeclaims: "4" });
  });

  it("pins a dedicated tenant's namespace to its node pool; a shared one is not pinned", () => {
    const [ns] = renderProjectObjects(dedicatedTenant, migProject, fullConfig) as INamespace[];
    expect(ns!.metadata!.annotations).toMatchObject({
      "scheduler.alpha.kubernetes.io/node-selector": "allot.dev/pool=vision-a100",
      "scheduler.alpha.kubernetes.io/defaultTolerations": JSON.stringify(dedicatedTenant.nodePool!.tolerations),
    });
    expect(ns!.metadata!.labels).toMatchObject({ "allot.dev/runtime-class": "gvisor", "allot.dev/isolation-tier": "dedicated" });
    const [shared] = renderProjectObjects(sharedTenant, noGpuProject, fullConfig) as INamespace[];
    expect(Object.keys(shared!.metadata!.annotations!).some((k) => k.startsWith("scheduler.alpha"))).toBe(false);
    expect(() => renderProjectObjects({ ...dedicatedTenant, nodePool: undefined }, migProject, fullConfig)).toThrow(/no node pool/);
  });

  it("keeps the cost centre as typed in an annotation and cleaned in the label", () => {
    const [ns] = renderProjectObjects(sharedTenant, noGpuProject, fullConfig) as INamespace[];
    expect(ns!.metadata!.labels!["allot.dev/cost-centre"]).toBe("CC-4711-R-D");
    expect(ns!.metadata!.annotations!["allot.dev/cost-centre"]).toBe("CC 4711 / R&D");
  });

  it("honours a custom label prefix everywhere", async () => {
    const objects = renderTenant(sharedTenant, [noGpuProject], { ...fullConfig, labelPrefix: "ml.example.com", sharedServicesSelector: { "ml.example.com/shared-service": "true" } });
    await validateObjects(objects);
    for (const o of objects) expect(o.metadata!.labels!["ml.example.com/tenant"]).toBe("acme");
    expect(JSON.stringify(objects)).not.toContain("allot.dev/");
  });
});
