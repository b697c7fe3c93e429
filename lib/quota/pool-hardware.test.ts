import { describe, expect, it } from "vitest";
import { formatNodeLabels, formatNodeTaints, labelKeyProblem, parseNodeLabels, parseNodeTaints, physicalGpusPerNode, schedulableGpusPerNode, sharingLabel } from "./pool-hardware";
import { gpuSharingInput, nodeLabelsInput, nodeTaintsInput, tiersInput } from "./pool-hardware-inputs";

const messages = (r: { success: boolean; error?: { issues: { message: string }[] } }) => (r.success ? [] : r.error!.issues.map((i) => i.message));

describe("node labels", () => {
  it("reads key=value lines (and commas), trimming, sorted by key, an empty value allowed", () => {
    expect(parseNodeLabels(" nvidia.com/gpu.product = NVIDIA-L4 \n\npool=l4, empty=")).toEqual({ ok: true, value: { empty: "", "nvidia.com/gpu.product": "NVIDIA-L4", pool: "l4" } });
    expect(parseNodeLabels("")).toEqual({ ok: true, value: {} });
  });

  it("names each line that breaks Kubernetes label syntax", () => {
    // Lines that are not key=value are named first (and alone).
    expect(parseNodeLabels("no-equals\nk=has space")).toEqual({ ok: false, problems: ["Write “no-equals” as key=value."] });
    const r2 = parseNodeLabels("Nvidia.com/gpu=x\nok/-bad=x\nk=has space\nk2=" + "v".repeat(64));
    expect(r2.ok ? [] : r2.problems).toEqual([
      expect.stringMatching(/^Give key “Nvidia.com\/gpu” a prefix that is a DNS subdomain/),
      expect.stringMatching(/^End key “ok\/-bad” in a name/),
      expect.stringMatching(/^Write the value “has space” of k in at most 63/),
      expect.stringMatching(/^Write the value “v{64}” of k2/),
    ]);
    expect(parseNodeLabels("a=1\na=2")).toEqual({ ok: false, problems: ["Give key “a” once only."] });
  });

  it("checks keys as Kubernetes does: prefix a DNS subdomain, name at most 63", () => {
    expect(labelKeyProblem("kubernetes.io/hostname")).toBeNull();
    expect(labelKeyProblem("a")).toBeNull();
    expect(labelKeyProblem("x".repeat(64))).toMatch(/at most 63/);
    expect(labelKeyProblem("/name")).toMatch(/DNS subdomain/);
    expect(labelKeyProblem("a_b.com/x")).toMatch(/DNS subdomain/);
  });

  it("accepts the form's text and the API's object through one field, refusing bad ones with each problem", () => {
    expect(nodeLabelsInput.parse("a=b")).toEqual({ a: "b" });
    expect(nodeLabelsInput.parse({ b: "c", a: "" })).toEqual({ a: "", b: "c" });
    expect(nodeLabelsInput.parse(undefined)).toEqual({});
    expect(nodeLabelsInput.parse(null)).toEqual({});
    expect(messages(nodeLabelsInput.safeParse({ "bad key": "x" }))).toEqual([expect.stringMatching(/^End key “bad key” in a name/)]);
    expect(nodeLabelsInput.safeParse(3).success).toBe(false);
  });

  it("formats stored labels back into the form's lines", () => {
    expect(formatNodeLabels({ z: "1", a: "" })).toBe("a=\nz=1");
  });
});

describe("node taints", () => {
  it("reads key=value:Effect and key:Effect lines", () => {
    expect(parseNodeTaints("nvidia.com/gpu=present:NoSchedule\nspot:PreferNoSchedule")).toEqual({
      ok: true,
      value: [
        { key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" },
        { key: "spot", effect: "PreferNoSchedule" },
      ],
    });
  });

  it("refuses an effect outside the three, a missing effect, bad syntax, and the same key and effect twice", () => {
    const r = parseNodeTaints("a=b:NoWay\nplain\n");
    expect(r).toEqual({ ok: false, problems: [expect.stringMatching(/^Write “plain” as key=value:Effect/)] });
    expect(parseNodeTaints("a=b:NoWay")).toEqual({ ok: false, problems: ["Give a an effect that is one of NoSchedule, PreferNoSchedule, NoExecute, not “NoWay”."] });
    expect(parseNodeTaints("a=x:NoSchedule\na=y:NoSchedule")).toEqual({ ok: false, problems: ["Give a with effect NoSchedule once only."] });
    expect(parseNodeTaints("a=x:NoSchedule\na=y:NoExecute").ok).toBe(true);
    expect(parseNodeTaints("bad key:NoSchedule").ok).toBe(false);
  });

  it("accepts the API's list and round-trips through the form's text", () => {
    const list = [{ key: "dedicated", value: "ml", effect: "NoExecute" as const }, { key: "gpu", effect: "NoSchedule" as const }];
    expect(nodeTaintsInput.parse(list)).toEqual(list);
    expect(nodeTaintsInput.parse(formatNodeTaints(list))).toEqual(list);
    expect(nodeTaintsInput.parse("")).toEqual([]);
    expect(nodeTaintsInput.safeParse([{ key: "a", effect: "Never" }]).success).toBe(false);
  });
});

describe("GPU sharing and tiers", () => {
  it("reads sharing, empty meaning exclusive", () => {
    expect(gpuSharingInput.parse("")).toBeNull();
    expect(gpuSharingInput.parse(undefined)).toBeNull();
    expect(gpuSharingInput.parse("time_sliced")).toBe("time_sliced");
    expect(gpuSharingInput.safeParse("mps").success).toBe(false);
  });

  it("reads tiers from text or a list, in the known order, empty meaning every tier", () => {
    expect(tiersInput.parse("training, serving serving")).toEqual(["serving", "training"]);
    expect(tiersInput.parse(["preemptible"])).toEqual(["preemptible"]);
    expect(tiersInput.parse("")).toBeNull();
    expect(tiersInput.parse(null)).toBeNull();
    expect(messages(tiersInput.safeParse("serving, batch"))).toEqual(["Enter tiers from serving, training, preemptible."]);
    expect(tiersInput.safeParse([]).success).toBe(false);
  });
});

describe("slices and physical GPUs", () => {
  it("a time-sliced pool offers GPUs × slices; MIG and exclusive pools offer what gpusPerNode counts", () => {
    expect(schedulableGpusPerNode({ gpusPerNode: 2, gpuSharing: "time_sliced", gpuSlices: 4 })).toBe(8);
    expect(schedulableGpusPerNode({ gpusPerNode: 56, gpuSharing: "mig", gpuSlices: 1 })).toBe(56);
    expect(schedulableGpusPerNode({ gpusPerNode: 8, gpuSharing: "exclusive", gpuSlices: 1 })).toBe(8);
    expect(schedulableGpusPerNode({ gpusPerNode: 8 })).toBe(8);
  });

  it("physical GPUs are gpusPerNode, except for MIG pools: the count label, or unknown", () => {
    expect(physicalGpusPerNode({ gpusPerNode: 2, gpuSharing: "time_sliced", gpuSlices: 4 })).toBe(2);
    expect(physicalGpusPerNode({ gpusPerNode: 56, gpuSharing: "mig", nodeLabels: { "nvidia.com/gpu.count": "8" } })).toBe(8);
    expect(physicalGpusPerNode({ gpusPerNode: 56, gpuSharing: "mig", nodeLabels: {} })).toBeNull();
  });

  it("words sharing for people", () => {
    expect(sharingLabel({ gpuSharing: "time_sliced", gpuSlices: 4 })).toBe("time-sliced ×4");
    expect(sharingLabel({ gpuSharing: "mig", gpuSlices: 1 })).toBe("MIG instances");
    expect(sharingLabel({ gpuSharing: "exclusive", gpuSlices: 1 })).toBe("whole GPUs");
  });
});
