import path from "node:path";
import { stringify } from "yaml";
import type { ClusterObject } from "./render-project";
import { manifestsToYaml } from "./yaml";

/**
 * Where each object of a render goes. `kubectl apply -R -f` walks folders in
 * name order and applies files in that order, so the prefixes put Namespaces
 * first, then cluster-scoped objects (Kueue flavours and queues), then each
 * namespace's objects: a fresh cluster takes it in one pass.
 */
export const NAMESPACES_DIR = "00-namespaces";
export const CLUSTER_SCOPED_DIR = "10-cluster";
const namespaceDir = (namespace: string) => `20-${namespace}`;

/**
 * The kustomization, for `kubectl apply -k`, Argo CD and Flux. Named
 * `Kustomization` (a name kustomize, Argo CD and Flux all recognise) rather
 * than kustomization.yaml, because `kubectl apply -R -f` reads every .yaml
 * file and would fail on a Kustomization, which is not a cluster object.
 */
export const KUSTOMIZATION_FILE = "Kustomization";

export function renderPath(o: ClusterObject): string {
  const name = o.metadata!.name!;
  if (o.kind === "Namespace") return path.posix.join(NAMESPACES_DIR, `${name}.yaml`);
  const namespace = o.metadata?.namespace;
  return path.posix.join(namespace ? namespaceDir(namespace) : CLUSTER_SCOPED_DIR, `${o.kind.toLowerCase()}-${name}.yaml`);
}

/** Paths in the order `kubectl apply -R -f` visits them: folder by folder, names in byte order. */
export function walkOrder(a: string, b: string): number {
  const [x, y] = [a.split("/"), b.split("/")];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return x.length - y.length;
}

/** One file per object plus the kustomization listing them, in apply order. Same objects, same files. */
export function renderLayout(objects: readonly ClusterObject[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const o of objects) {
    const file = renderPath(o);
    // Names are unique per kind and namespace, so this is a rendering bug, not an input to tolerate.
    if (files.has(file)) throw new Error(`two rendered objects would share ${file}`);
    files.set(file, manifestsToYaml([o]));
  }
  const resources = [...files.keys()].sort(walkOrder);
  const kustomization = stringify({ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", resources }, { lineWidth: 0 });
  files.set(KUSTOMIZATION_FILE, `# Rendered by \`allot render\`: every file here, Namespaces and cluster-scoped objects first.\n${kustomization}`);
  return files;
}
