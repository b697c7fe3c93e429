import { describe, expect, it } from "vitest";
import { explainWaitReason, resourceWords, UNKNOWN_WAIT_REASON } from "./wait-reason";

const labels: Record<string, string> = { "vision-lab-h100": "H100", "vision-lab-default": "any node" };
const explain = (raw: string | null) => explainWaitReason(raw, { flavorLabel: (name) => labels[name] ?? name });
const sentence = (raw: string) => explain(raw)!.sentence;

describe("explainWaitReason", () => {
  it("says how much must come free when the guarantee is in use and nothing idle can be borrowed", () => {
    expect(explain("couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor vision-lab-h100, 4 more needed")).toEqual({
      known: true,
      sentence: "It waits for 4 more GPUs of H100 to come free: what the project holds is in use and nothing idle can be borrowed right now. It starts when running work finishes or idle quota appears.",
    });
    // Older Kueue said "in cohort"; several resources in one message are listed together.
    expect(sentence("couldn't assign flavors to pod set main: insufficient unused quota in cohort for cpu in flavor vision-lab-default, 8 more needed, insufficient unused quota in cohort for nvidia.com/gpu in flavor vision-lab-h100, 2 more needed")).toMatch(
      /^It waits for 8 more CPU of any node and 2 more GPUs of H100 to come free:/,
    );
  });

  it("says the burst limit is reached when borrowing more is not allowed", () => {
    expect(sentence("couldn't assign flavors to pod set main: borrowing limit for nvidia.com/gpu in flavor vision-lab-h100 exceeded")).toBe(
      "Starting it would borrow more GPUs of H100 than the project's burst limit allows: it waits until the project's other borrowed work finishes (or the burst limit is raised).",
    );
  });

  it("says a workload larger than its queue can ever hold will not start as submitted, in both of Kueue's wordings", () => {
    expect(sentence("couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor vision-lab-h100, request > maximum capacity (24 > 16)")).toBe(
      "It asks for more GPUs of H100 (24 asked, 16 at most) than its queue can ever hold, so it will not start as submitted: ask for less, or request more quota for the project.",
    );
    expect(sentence("couldn't assign flavors to pod set workers: insufficient quota for memory in flavor vision-lab-default, previously considered podsets requests (0) + current podset request (2Ti) > maximum capacity (1Ti)")).toMatch(
      /^It asks for more memory of any node \(at most 1Ti\) than its queue can ever hold/,
    );
  });

  it("names a resource the queue holds no quota for, in people's words for GPUs, MIG slices and shared GPUs", () => {
    expect(sentence("couldn't assign flavors to pod set main: resource nvidia.com/mig-3g.40gb unavailable in ClusterQueue")).toBe(
      "The project's queue holds no quota for 3g.40gb MIG slices, so it cannot start: ask for a resource the project holds, or request quota for 3g.40gb MIG slices.",
    );
    expect(resourceWords("nvidia.com/gpu.shared")).toBe("GPU slices");
    expect(resourceWords("example.com/fpga")).toBe("example.com/fpga");
  });

  it("explains node selection, queue and namespace problems", () => {
    expect(sentence("couldn't assign flavors to pod set main: flavor vision-lab-h100 doesn't match node affinity")).toMatch(/^Its node selector, affinity or tolerations match none of the nodes/);
    expect(sentence("couldn't assign flavors to pod set main: untolerated taint {nvidia.com/gpu present NoSchedule <nil>} in flavor vision-lab-h100")).toMatch(/^Its node selector, affinity or tolerations/);
    expect(sentence("Workload namespace doesn't match ClusterQueue selector")).toMatch(/does not admit workloads from this project's namespace/);
    expect(sentence("LocalQueue batch doesn't exist")).toMatch(/^It names a queue, batch, that does not exist/);
    expect(sentence("ClusterQueue vision-lab--detector-training.burst is inactive")).toMatch(/^The project's queue is not ready on the cluster yet/);
    expect(sentence("ClusterQueue vision-lab--detector-training doesn't exist")).toMatch(/^The project's queue is not ready on the cluster yet/);
  });

  it("explains preemption by its cause, and waiting while others are preempted", () => {
    const preempted = (why: string) => sentence(`Preempted to accommodate a workload (UID: 1234, JobUID: 5678) due to ${why}`);
    expect(preempted("reclamation within the cohort")).toMatch(/^It ran on borrowed quota and was preempted when the project that lent it took its quota back/);
    expect(preempted("Fair Sharing within the cohort")).toMatch(/^It was preempted so another project could have its fair share/);
    expect(preempted("prioritization in the ClusterQueue")).toMatch(/^It was preempted by higher-priority work of the project/);
    expect(sentence("Pending the preemption of 2 workload(s)")).toBe("Quota is being freed for it: 2 lower-priority or borrowed workloads are being preempted.");
    expect(sentence("Pending the preemption of 1 workload(s)")).toBe("Quota is being freed for it: 1 lower-priority or borrowed workload is being preempted.");
  });

  it("explains turns, timeouts, deactivation and admission checks", () => {
    expect(sentence("Workload no longer fits after processing another workload")).toBe("It waits its turn: a workload ahead of it took the quota that was free.");
    expect(sentence("Exceeded the PodsReady timeout vision-lab--detector-training/train")).toMatch(/^Its pods did not all start in time/);
    expect(sentence("The workload is deactivated due to exceeding the maximum number of re-queuing retries")).toMatch(/^It is deactivated/);
    expect(sentence("The workload has failed admission checks")).toMatch(/^An admission check refused it/);
  });

  it("falls back to a plain sentence for a message it does not know, and gives nothing for no message", () => {
    expect(explain("something Kueue will say in a later version")).toEqual({ known: false, sentence: UNKNOWN_WAIT_REASON });
    expect(explain(null)).toBeNull();
    expect(explain("  ")).toBeNull();
    // Without labels, the flavour's object name is used as it is.
    expect(explainWaitReason("borrowing limit for cpu in flavor acme-default exceeded")!.sentence).toMatch(/more CPU of acme-default than/);
  });
});
