import { describe, expect, it } from "vitest";
import { readableManifest, storedManifestsToYaml } from "./yaml";

// What a jsonb column gives back: keys shortest first, not as rendered.
const fromJsonb = {
  kind: "ResourceQuota",
  spec: { hard: { pods: "200", "limits.cpu": "4" } },
  metadata: { name: "project-quota", labels: { "allot.dev/tenant": "vision-lab", "allot.dev/project": "detector-training" }, namespace: "vision-lab--detector-training" },
  apiVersion: "v1",
};

describe("readableManifest", () => {
  it("puts keys in kubectl's order, with name and namespace leading metadata", () => {
    const m = readableManifest(fromJsonb) as Record<string, Record<string, unknown>>;
    expect(Object.keys(m)).toEqual(["apiVersion", "kind", "metadata", "spec"]);
    expect(Object.keys(m.metadata!)).toEqual(["name", "namespace", "labels"]);
    expect(Object.keys(m.metadata!.labels as object)).toEqual(["allot.dev/project", "allot.dev/tenant"]);
    expect(Object.keys((m.spec!.hard as object))).toEqual(["limits.cpu", "pods"]);
  });

  it("keeps arrays in order and leaves values alone", () => {
    expect(readableManifest({ b: [{ y: 1, x: null }, "s", 2], a: true })).toEqual({ a: true, b: [{ x: null, y: 1 }, "s", 2] });
    expect(JSON.stringify(readableManifest({ b: [{ y: 1, x: null }] }))).toBe('{"b":[{"x":null,"y":1}]}');
  });

  it("writes a YAML stream that reads like kubectl's", () => {
    expect(storedManifestsToYaml([fromJsonb], "plan")).toBe(
      [
        "# plan",
        "---",
        "apiVersion: v1",
        "kind: ResourceQuota",
        "metadata:",
        "  name: project-quota",
        "  namespace: vision-lab--detector-training",
        "  labels:",
        "    allot.dev/project: detector-training",
        "    allot.dev/tenant: vision-lab",
        "spec:",
        "  hard:",
        '    limits.cpu: "4"',
        '    pods: "200"',
        "",
      ].join("\n"),
    );
  });
});
