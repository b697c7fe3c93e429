import { isKueueObject, kueueProblems } from "./kueue";
import { kueueSchemaProblems } from "./kueue-schema";
import type { ClusterObject } from "./render-project";

type Model = new (data: never) => { validate(): void };

/**
 * The kinds we render, each checked against the official OpenAPI schema
 * kubernetes-models ships. The package is ESM-only, so it is loaded with a
 * dynamic import (once): that also works where our code runs as CommonJS
 * (the operator CLI under tsx).
 */
let models: Promise<Record<string, Model>> | undefined;
function loadModels(): Promise<Record<string, Model>> {
  models ??= Promise.all([
    import("kubernetes-models/v1/Namespace"),
    import("kubernetes-models/v1/ResourceQuota"),
    import("kubernetes-models/v1/LimitRange"),
    import("kubernetes-models/v1/ServiceAccount"),
    import("kubernetes-models/networking.k8s.io/v1/NetworkPolicy"),
    import("kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding"),
  ]).then(([ns, rq, lr, sa, np, rb]) => ({
    "v1/Namespace": ns.Namespace,
    "v1/ResourceQuota": rq.ResourceQuota,
    "v1/LimitRange": lr.LimitRange,
    "v1/ServiceAccount": sa.ServiceAccount,
    "networking.k8s.io/v1/NetworkPolicy": np.NetworkPolicy,
    "rbac.authorization.k8s.io/v1/RoleBinding": rb.RoleBinding,
  }));
  return models;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export class InvalidObjectError extends Error {
  constructor(
    readonly kind: string,
    readonly objectName: string,
    readonly problem: string,
  ) {
    super(`invalid ${kind} ${objectName}: ${problem}`);
    this.name = "InvalidObjectError";
  }
}

/** Rules the OpenAPI schema does not encode but the API server enforces: names and labels. */
function metaProblems(o: ClusterObject): string[] {
  const problems: string[] = [];
  const name = o.metadata?.name ?? "";
  const nameOk = o.kind === "Namespace" ? DNS_LABEL.test(name) && name.length <= 63 : DNS_SUBDOMAIN.test(name) && name.length <= 253;
  if (!nameOk) problems.push(`metadata.name ${JSON.stringify(name)} is not a valid ${o.kind === "Namespace" ? "DNS-1123 label" : "DNS-1123 subdomain"}`);
  for (const [key, value] of Object.entries((o.metadata?.labels ?? {}) as Record<string, string>)) {
    const [prefix, label] = key.includes("/") ? [key.slice(0, key.indexOf("/")), key.slice(key.indexOf("/") + 1)] : [undefined, key];
    if ((prefix !== undefined && !(DNS_SUBDOMAIN.test(prefix) && prefix.length <= 253)) || !LABEL_NAME.test(label) || label.length > 63)
      problems.push(`label key ${JSON.stringify(key)} is invalid`);
    if (!LABEL_VALUE.test(value) || value.length > 63) problems.push(`label ${key} value ${JSON.stringify(value)} is invalid`);
  }
  return problems;
}

/**
 * Check every rendered object before it is stored or sent. An invalid object
 * is a bug in rendering or in the configuration, so this throws, naming the
 * object and the first problem, and nothing of the change is applied.
 */
export async function validateObjects(objects: readonly ClusterObject[]): Promise<void> {
  const MODELS = await loadModels();
  for (const o of objects) {
    const kind = String(o.kind);
    const name = o.metadata?.name ?? "(unnamed)";
    const problems = metaProblems(o);
    if (isKueueObject(o)) {
      // The hand rules first (their messages read better), then what Kueue's own CRDs say.
      problems.push(...kueueProblems(o));
      if (problems.length === 0) problems.push(...kueueSchemaProblems(o));
    } else {
      const Model = MODELS[`${o.apiVersion}/${kind}`];
      if (!Model) throw new InvalidObjectError(kind, name, `no schema for ${o.apiVersion} ${kind}`);
      try {
        new Model(o as never).validate();
      } catch (e) {
        problems.push(e instanceof Error ? e.message : String(e));
      }
    }
    if (problems.length > 0) throw new InvalidObjectError(kind, name, problems.join("; "));
  }
}
