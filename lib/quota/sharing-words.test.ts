import { describe, expect, it } from "vitest";
import type { PoolCapacityInput } from "./capacity";
import { approvalArithmetic, sharingArithmetic, type TenantHoldings } from "./sharing-arithmetic";
import { approvalSentence, lineSentence } from "./sharing-words";

const ONE = { cpu: 1, memory: 1, gpu: 1 };
const H100 = { flavor: "H100", resource: "nvidia.com/gpu" };
// 24 at the minimum, 32 now, 48 at the maximum.
const pool: PoolCapacityInput = { name: "h100-pool", gpuModel: "H100", gpuResource: "nvidia.com/gpu", gpusPerNode: 8, nodeCount: 4, minNodes: 3, maxNodes: 6, cpuPerNode: 1, memoryBytesPerNode: 1 };
const holding = (guarantee: number, burst: number): TenantHoldings[] => [{ tenantId: "t", slug: "t", name: "T", active: true, lines: [{ ...H100, envelope: null, held: guarantee, heldBurst: burst, lendable: 0 }] }];

describe("the sharing arithmetic in words", () => {
  it("says what is left to guarantee at the minimum and how far borrowing could grow the pools", () => {
    expect(lineSentence(sharingArithmetic([pool], ONE, holding(20, 16))[0]!)).toBe(
      "H100: 20 of the 24 the pools keep at their autoscaler minimum are guaranteed; 4 left to guarantee. With every burst limit used, 36 H100 GPUs could be asked for: borrowing alone could make the autoscaler grow h100-pool to 5 nodes (max 6), 4 more within the maximum.",
    );
    expect(lineSentence(sharingArithmetic([pool], ONE, holding(26, 0))[0]!)).toBe(
      "H100: 26 are guaranteed, 2 more than the 24 the pools keep at their autoscaler minimum: if the autoscaler shrinks them, not every guarantee can be met. No burst limits: nothing can be borrowed beyond the guarantees.",
    );
    expect(lineSentence(sharingArithmetic([pool], ONE, holding(8, 60))[0]!)).toMatch(/more than even the autoscaler maximum \(48\) holds, so borrowing stops there \(16 more than present at most\)\.$/);
  });

  it("says per line a request touches whether the pools hold the guarantees after approval, or that approving is refused", () => {
    const [ok] = approvalArithmetic([pool], ONE, holding(20, 8), "t", [{ ...H100, guarantee: 2, burst: 4 }]);
    expect(approvalSentence(ok!)).toBe(
      "H100: 22 H100 GPUs guaranteed across all tenants after approval (20 now): the pools hold them at their minimum (24), now (32) and at their maximum (48). Burst limits go from 8 to 12. With every burst limit used, 34 H100 GPUs could be asked for: borrowing alone could make the autoscaler grow h100-pool to 5 nodes (max 6), 2 more within the maximum.",
    );
    const [refused] = approvalArithmetic([pool], ONE, holding(20, 0), "t", [{ ...H100, guarantee: 6, burst: 0 }]);
    expect(approvalSentence(refused!)).toMatch(/^H100: 26 H100 GPUs guaranteed across all tenants after approval \(20 now\): more than the pools keep at their autoscaler minimum \(24\): approving as asked is refused, 4 more can be guaranteed\./);
  });

  it("speaks of a CPU or memory line in cores and GiB, granted beyond the starting quotas", () => {
    const GiB = 2 ** 30;
    const cpuPool: PoolCapacityInput = { name: "cpu", gpuModel: null, gpuResource: null, gpusPerNode: 0, nodeCount: 4, minNodes: 2, maxNodes: 8, cpuPerNode: 64, memoryBytesPerNode: 256 * GiB };
    const holders: TenantHoldings[] = [{ tenantId: "t", slug: "t", name: "T", active: true, lines: [{ flavor: "default", resource: "memory", envelope: null, held: 100 * GiB, heldBurst: 0, lendable: 0 }] }];
    const [cpu, memory] = approvalArithmetic([cpuPool], ONE, holders, "t", [
      { flavor: "default", resource: "cpu", guarantee: 16, burst: 300 },
      { flavor: "default", resource: "memory", guarantee: 0, burst: 512 * GiB },
    ]);
    expect(approvalSentence(cpu!)).toBe(
      "CPU: 16 cores granted across all tenants after approval (0 now, starting quotas aside): the pools hold them at their minimum (128), now (256) and at their maximum (512). Burst limits go from 0 to 300. With every burst limit used, 316 cores could be asked for: borrowing alone could make the autoscaler grow cpu to 5 nodes (max 8), 60 more within the maximum.",
    );
    expect(approvalSentence(memory!)).toBe(
      "Memory: 100 GiB of memory granted across all tenants after approval (100 now, starting quotas aside): the pools hold them at their minimum (512), now (1,024) and at their maximum (2,048). Burst limits go from 0 to 512. With every burst limit used, 612 GiB of memory could be asked for: the 1,024 present hold that, so borrowing alone makes the autoscaler add nothing.",
    );
  });
});
