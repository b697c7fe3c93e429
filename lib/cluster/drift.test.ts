import { describe, expect, it } from "vitest";
import { ownedFieldDrift } from "./drift";

const desired = {
  apiVersion: "v1",
  kind: "ResourceQuota",
  metadata: { name: "project-quota", namespace: "a--b", labels: { "allot.dev/tenant": "a" } },
  spec: { hard: { "requests.cpu": "500m", "requests.memory": "1024Mi", pods: "20" } },
};

describe("ownedFieldDrift", () => {
  it("ignores what the server adds and normalised quantities", () => {
    const live = {
      ...desired,
      metadata: { ...desired.metadata, uid: "u", resourceVersion: "7", labels: { "allot.dev/tenant": "a", other: "x" }, managedFields: [] },
      spec: { hard: { "requests.cpu": "0.5", "requests.memory": "1Gi", pods: "20" } },
      status: { used: {} },
    };
    expect(ownedFieldDrift(desired, live)).toEqual([]);
  });

  it("names each owned field that differs, with both values", () => {
    const live = { ...desired, metadata: { ...desired.metadata, labels: {} }, spec: { hard: { "requests.cpu": "64", "requests.memory": "1Gi" } } };
    expect(ownedFieldDrift(desired, live)).toEqual([
      { path: ".metadata.labels.allot.dev/tenant", desired: "a", live: null },
      { path: ".spec.hard.requests.cpu", desired: "500m", live: "64" },
      { path: ".spec.hard.pods", desired: "20", live: null },
    ]);
  });

  it("compares lists whole and in order", () => {
    const np = { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name: "n" }, spec: { policyTypes: ["Ingress", "Egress"] } };
    expect(ownedFieldDrift(np, { ...np, spec: { policyTypes: ["Ingress", "Egress"] } })).toEqual([]);
    expect(ownedFieldDrift(np, { ...np, spec: { policyTypes: ["Ingress"] } })).toEqual([{ path: ".spec.policyTypes", desired: ["Ingress", "Egress"], live: ["Ingress"] }]);
  });
});
