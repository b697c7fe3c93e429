import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseAllDocuments } from "yaml";

/**
 * `kubectl kustomize` for tests: the renderer kubectl, Argo CD and Flux apply
 * these manifests with. kubectl 1.27 or newer is needed (kustomize v5: labels,
 * components); Debian's kubernetes-client (1.20) is too old. Without it the
 * tests fail with this message rather than pass unchecked.
 */

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

let checked = false;
function requireKubectl(): void {
  if (checked) return;
  let version: { kustomizeVersion?: string };
  try {
    version = JSON.parse(execFileSync("kubectl", ["version", "--client", "-o", "json"], { encoding: "utf8" })) as { kustomizeVersion?: string };
  } catch (error) {
    throw new Error(`kubectl is needed to render the Kustomize manifests (kubectl 1.27+ on PATH): ${(error as Error).message}`);
  }
  const major = Number(/^v(\d+)/.exec(version.kustomizeVersion ?? "")?.[1] ?? 0);
  if (major < 5) throw new Error(`kubectl's kustomize is ${version.kustomizeVersion ?? "unknown"}; these manifests need kustomize v5 (kubectl 1.27 or newer)`);
  checked = true;
}

/** Render a kustomization directory into its objects. */
export function kustomize(dir: string): Manifest[] {
  requireKubectl();
  const text = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

/**
 * Render `resources` with `components` added, as an operator's own overlay
 * would (kustomize refuses absolute paths, so the temporary kustomization
 * names them relative to itself).
 */
export function kustomizeWith(resource: string, components: string[], namespace: string): Manifest[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allot-kustomize-"));
  try {
    const rel = (p: string) => path.relative(dir, p);
    const lines = ["apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization", `namespace: ${namespace}`, `resources:\n  - ${rel(resource)}`, `components:\n${components.map((c) => `  - ${rel(c)}`).join("\n")}`];
    fs.writeFileSync(path.join(dir, "kustomization.yaml"), `${lines.join("\n")}\n`);
    return kustomize(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
