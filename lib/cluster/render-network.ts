import type { INetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import type { DesiredProject, DesiredTenant, RenderConfig } from "./desired-state";
import { projectMeta } from "./meta";

type Spec = NonNullable<INetworkPolicy["spec"]>;
type Peer = NonNullable<NonNullable<Spec["ingress"]>[number]["from"]>[number];

/** The automatic label every namespace has; it cannot be set by a tenant on its own namespace. */
const NAME_LABEL = "kubernetes.io/metadata.name";

const namespaceNamed = (name: string): Peer => ({ namespaceSelector: { matchLabels: { [NAME_LABEL]: name } } });

function nonEmpty(selector: Record<string, string>, what: string): Record<string, string> {
  // An empty selector would select every namespace (or pod): refuse rather than open the network.
  if (Object.keys(selector).length === 0) throw new Error(`${what} must not be an empty selector`);
  return { ...selector };
}

/**
 * Default deny in both directions, then narrow allowances: the namespace
 * itself, DNS to kube-dns only, egress to platform shared services chosen by a
 * platform-owned label, ingress from the gateway and monitoring namespaces
 * when configured. No rule ever uses `namespaceSelector: {}` (all namespaces).
 */
export function renderNetworkPolicies(tenant: DesiredTenant, project: DesiredProject, config: RenderConfig): INetworkPolicy[] {
  const policy = (name: string, spec: Spec): INetworkPolicy => ({
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: projectMeta(config, tenant, project, name),
    spec,
  });
  const samePods: Peer = { podSelector: {} };

  const out: INetworkPolicy[] = [
    policy("default-deny", { podSelector: {}, policyTypes: ["Ingress", "Egress"] }),
    policy("allow-same-namespace", {
      podSelector: {},
      policyTypes: ["Ingress", "Egress"],
      ingress: [{ from: [samePods] }],
      egress: [{ to: [samePods] }],
    }),
    policy("allow-dns", {
      podSelector: {},
      policyTypes: ["Egress"],
      egress: [
        {
          // One peer with both selectors: kube-dns pods in kube-system (AND), not either.
          to: [{ ...namespaceNamed("kube-system"), podSelector: { matchLabels: nonEmpty(config.kubeDnsSelector, "kube-dns selector") } }],
          ports: [
            { protocol: "UDP", port: 53 },
            { protocol: "TCP", port: 53 },
          ],
        },
      ],
    }),
  ];

  if (config.sharedServicesSelector) {
    const matchLabels = nonEmpty(config.sharedServicesSelector, "shared-services selector");
    out.push(policy("allow-shared-services", { podSelector: {}, policyTypes: ["Egress"], egress: [{ to: [{ namespaceSelector: { matchLabels } }] }] }));
  }
  if (config.gatewayNamespace) {
    out.push(policy("allow-from-gateway", { podSelector: {}, policyTypes: ["Ingress"], ingress: [{ from: [namespaceNamed(config.gatewayNamespace)] }] }));
  }
  if (config.monitoringNamespace) {
    out.push(policy("allow-from-monitoring", { podSelector: {}, policyTypes: ["Ingress"], ingress: [{ from: [namespaceNamed(config.monitoringNamespace)] }] }));
  }
  return out;
}
