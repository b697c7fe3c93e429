/**
 * The Kueue workloads the demo's story tells of: Dana's detector training
 * fills the project's H100 guarantee, and hyper-parameter sweeps in the
 * preemptible tier borrow idle H100s (with CPU and memory beside them) up to
 * the burst limit of lib/demo/quota.ts, where the last one waits. The live
 * journey (e2e/share-now.live.spec.ts) submits exactly these, and
 * lib/demo/workloads.int.test.ts checks that every workload the story admits
 * fits the ClusterQueue the demo renders for it, for every resource it asks for.
 */
export interface DemoWorkload {
  name: string;
  /** The LocalQueue it is submitted to: default (the guaranteed ClusterQueue) or preemptible (the burst one). */
  queueName: "default" | "preemptible";
  tier: "training" | "preemptible";
  /** H100 GPUs, and CPU and memory as Kubernetes quantities: what its one pod set asks for. */
  gpus: number;
  cpu: string;
  memory: string;
  /** How the story ends for it: admitted (within the guarantee or on borrowed quota), or still waiting at the burst limit. */
  ends: "admitted" | "waits_at_burst_limit";
}

export const DEMO_WORKLOAD_PROJECT = { tenant: "vision-lab", project: "detector-training", gpuModel: "H100" } as const;

const sweep = (n: number, ends: DemoWorkload["ends"]): DemoWorkload => ({ name: `sweep-lr-${n}`, queueName: "preemptible", tier: "preemptible", gpus: 4, cpu: "16", memory: "128Gi", ends });

export const DEMO_WORKLOADS: readonly DemoWorkload[] = [
  { name: "train-detector-v7", queueName: "default", tier: "training", gpus: 8, cpu: "48", memory: "384Gi", ends: "admitted" },
  sweep(1, "admitted"),
  sweep(2, "admitted"),
  sweep(3, "waits_at_burst_limit"),
];
