import Link from "next/link";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState } from "@/components/ui";
import type { CapacityOverview, ResourceCapacity } from "@/lib/quota/capacity-queries";
import { percent } from "./format";

/**
 * Allocated quota against what the node pools hold, per resource (GPU models,
 * CPU, memory), as the capacity overview computes it: the other side of idle
 * cost (quota allocated is not the same as capacity used, but it bounds it).
 */

const GiB = 2 ** 30;
const amount = new Intl.NumberFormat("en-GB", { maximumFractionDigits: 1 });

function amountOf(r: ResourceCapacity, value: number): string {
  return r.key === "memory" ? `${amount.format(value / GiB)} GiB` : `${amount.format(value)} ${r.unit}`;
}

/** "H100 GPUs", "CPU", "Memory": the label without the unit the amounts already carry. */
function nameOf(r: ResourceCapacity): string {
  return r.key === "cpu" ? "CPU" : r.key === "memory" ? "Memory" : r.label;
}

export function PoolUtilisation({ overview }: { overview: CapacityOverview }) {
  return (
    <Card
      title="Pool utilisation"
      description="Quota allocated to open projects against what the node pools hold (after overcommit). Low allocation of a priced pool shows up as idle cost above."
      actions={
        <Link href="/admin/capacity" className="shrink-0 text-sm font-medium text-brand-700 hover:underline">
          Capacity and prices
        </Link>
      }
    >
      {overview.resources.length === 0 ? (
        <EmptyState title="No node pools yet">Add the cluster&apos;s node pools under Capacity and prices; idle cost is measured against them.</EmptyState>
      ) : (
        <DataTable caption="Pool utilisation per resource" columns={["Resource", "Allocated / capacity", "Allocated share", "Pools"]}>
          {overview.resources.map((r) => {
            const ratio = r.utilisation;
            // A mixed MIG pool holds each of its requestable profiles.
            const pools = overview.pools.filter((p) => p.gpuModel !== null && (r.key === `gpu:${p.gpuModel}` || p.gpuProfiles.some((x) => r.key === `gpu:${x.model}`)));
            return (
              <tr key={r.key}>
                <Cell className="whitespace-nowrap font-medium text-slate-900">{nameOf(r)}</Cell>
                <Cell className="whitespace-nowrap tabular-nums">
                  {amountOf(r, r.allocated)} / {amountOf(r, r.capacity)}
                  {r.over && (
                    <span className="ml-2">
                      <Badge tone="red">over capacity</Badge>
                    </span>
                  )}
                </Cell>
                <Cell>
                  <span className="inline-flex items-center gap-3">
                    <span className="h-2 w-32 overflow-hidden rounded-full bg-slate-100" aria-hidden>
                      <span
                        className={`block h-full rounded-full ${r.over ? "bg-red-500" : ratio !== null && ratio >= 0.85 ? "bg-amber-500" : "bg-brand-600"}`}
                        style={{ width: `${Math.min(100, (ratio ?? 0) * 100)}%` }}
                      />
                    </span>
                    <span className="tabular-nums text-slate-700">{ratio === null ? "no capacity" : percent(ratio)}</span>
                  </span>
                </Cell>
                <Cell className="text-xs text-slate-600">{r.key === "cpu" || r.key === "memory" ? `all ${overview.pools.length} pools` : pools.map((p) => p.name).join(", ") || "—"}</Cell>
              </tr>
            );
          })}
        </DataTable>
      )}
    </Card>
  );
}
