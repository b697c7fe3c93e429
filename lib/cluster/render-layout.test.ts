import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { dedicatedTenant, fullConfig, migProject, noGpuProject, sharedTenant } from "./fixtures";
import { KUSTOMIZATION_FILE, renderLayout, walkOrder } from "./render-layout";
import { renderTenant } from "./render-project";

const objects = [...renderTenant(dedicatedTenant, [migProject], fullConfig), ...renderTenant(sharedTenant, [noGpuProject], fullConfig)];
const files = renderLayout(objects);
const manifests = [...files.keys()].filter((f) => f !== KUSTOMIZATION_FILE);
const kindOf = (file: string) => (parse(files.get(file)!) as { kind: string; metadata: { namespace?: string } });

const hasKubectl = (() => {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe("the layout of allot render", () => {
  it("puts Namespaces first, then cluster-scoped objects, then namespaced ones, in the order kubectl apply -R -f walks", () => {
    const walked = [...manifests].sort(walkOrder).map((f) => kindOf(f));
    const firstNamespaced = walked.findIndex((o) => o.metadata.namespace !== undefined);
    const lastNamespace = walked.map((o) => o.kind).lastIndexOf("Namespace");
    const lastClusterScoped = walked.map((o) => o.metadata.namespace === undefined).lastIndexOf(true);
    expect(walked.filter((o) => o.kind === "Namespace")).toHaveLength(2);
    expect(walked.filter((o) => o.kind === "ClusterQueue")).toHaveLength(2);
    expect(lastNamespace).toBeLessThan(walked.findIndex((o) => o.kind === "ClusterQueue"));
    expect(lastClusterScoped).toBeLessThan(firstNamespaced);
    expect(manifests).toEqual(expect.arrayContaining(["00-namespaces/vision--training.yaml", "10-cluster/clusterqueue-vision--training.yaml", "20-vision--training/resourcequota-project-quota.yaml"]));
  });

  it("writes one object per file and a Kustomization listing every file once, in the same order", () => {
    expect(manifests).toHaveLength(objects.length);
    for (const f of manifests) expect(parseAllDocuments(files.get(f)!).filter((d) => d.contents !== null)).toHaveLength(1);
    const kustomization = parse(files.get(KUSTOMIZATION_FILE)!) as { apiVersion: string; kind: string; resources: string[] };
    expect(kustomization).toMatchObject({ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization" });
    expect(kustomization.resources).toEqual([...manifests].sort(walkOrder));
    // kubectl apply -R -f reads only .yaml, .yml and .json files: the kustomization must not be one.
    expect(KUSTOMIZATION_FILE).not.toMatch(/\.(ya?ml|json)$/);
  });

  it("is the same files for the same objects", () => {
    expect([...renderLayout([...objects]).entries()]).toEqual([...files.entries()]);
  });

  it(`renders with kubectl kustomize into exactly the objects (${hasKubectl ? "kubectl on PATH" : "kubectl not on PATH: the files listed are checked to parse instead"})`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allot-render-"));
    try {
      for (const [file, content] of files) {
        fs.mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), content);
      }
      const listed = (parse(fs.readFileSync(path.join(dir, KUSTOMIZATION_FILE), "utf8")) as { resources: string[] }).resources;
      const built = hasKubectl
        ? parseAllDocuments(execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8" })).map((d) => d.toJS() as { kind: string; metadata: { name: string; namespace?: string } })
        : listed.map((f) => parse(fs.readFileSync(path.join(dir, f), "utf8")) as { kind: string; metadata: { name: string; namespace?: string } });
      const key = (o: { kind: string; metadata?: { name?: string; namespace?: string } }) => `${o.kind}/${o.metadata?.namespace ?? ""}/${o.metadata?.name}`;
      expect(built.map(key).sort()).toEqual(objects.map(key).sort());
      if (hasKubectl) expect(built[0]!.kind).toBe("Namespace");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
