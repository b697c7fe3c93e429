import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { ActionForm } from "@/components/action-form";
import { plural } from "@/components/cluster-status";
import { HardwareFacts, OfferedGpuResources, GpuProfilesList } from "@/components/pool-hardware";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { can } from "@/lib/auth/policy";
import { clusterRuntime } from "@/lib/cluster/runtime";
import { config } from "@/lib/config";
import { nodePoolImportProposal, type ImportProposal } from "@/lib/quota/capacity-queries";
import type { PoolField } from "@/lib/quota/import-pools";
import { sharingLabel } from "@/lib/quota/pool-hardware";
import { importNodePoolsAction } from "../actions";

export const metadata = { title: "Import node pools" };
export const dynamic = "force-dynamic";

const GiB = 2 ** 30;
const number = new Intl.NumberFormat("en-GB", { maximumFractionDigits: 3 });
const gib = (bytes: number) => `${new Intl.NumberFormat("en-GB", { maximumFractionDigits: 1 }).format(bytes / GiB)} GiB`;

const FIELD_LABELS: Record<PoolField, string> = {
  gpuModel: "GPU model",
  gpuResource: "GPU resource",
  gpusPerNode: "GPUs per node",
  gpuSharing: "GPU sharing",
  gpuSlices: "slices per GPU",
  nodeCount: "nodes",
  minNodes: "minimum nodes",
  maxNodes: "maximum nodes",
  cpuPerNode: "cores per node",
  memoryBytesPerNode: "memory per node",
  nodeLabels: "node labels",
  nodeTaints: "node taints",
  offeredGpuResources: "GPU resources the nodes offer",
  gpuProfiles: "further requestable profiles",
};

function show(field: PoolField, value: string | number | null): string {
  if (value === null) return "none";
  if (field === "memoryBytesPerNode") return gib(Number(value));
  return typeof value === "number" ? number.format(value) : value;
}

export default async function ImportPoolsPage() {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  if (!can(ctx.actor, "capacity.manage", { kind: "platform" }, ctx.now)) notFound();
  const runtime = clusterRuntime(config().cluster);

  let proposal: ImportProposal | null = null;
  let failure: string | null = null;
  if (runtime.client) {
    try {
      proposal = await nodePoolImportProposal(ctx, runtime.client);
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
  }

  return (
    <>
      <PageHeader
        crumbs={[
          { href: "/admin", label: "Admin" },
          { href: "/admin/capacity", label: "Capacity and prices" },
        ]}
        title="Import node pools"
        subtitle="Pools proposed from the cluster’s nodes: grouped by their node-pool label, GPUs and per-node amounts from what each node can allocate. Nothing is saved until you import."
      />
      {!runtime.client ? (
        <Card>
          <EmptyState title="No cluster connected">
            This portal runs record-only, so there are no nodes to read. Add pools by hand on{" "}
            <Link href="/admin/capacity" className="text-brand-700 hover:underline">
              Capacity and prices
            </Link>
            .
          </EmptyState>
        </Card>
      ) : failure || !proposal ? (
        <Card title="Could not read the nodes">
          <p className="text-sm text-red-700">{failure ?? "The cluster did not answer."}</p>
          <p className="mt-2 text-sm text-slate-600">The portal’s service account needs permission to list nodes (a ClusterRole with get and list on nodes).</p>
        </Card>
      ) : (
        <Proposal proposal={proposal} server={runtime.server} />
      )}
    </>
  );
}

function Proposal({ proposal, server }: { proposal: ImportProposal; server: string | null }) {
  const importable = proposal.items.filter((i) => i.status !== "unchanged" && i.problem === null);
  return (
    <div className="space-y-6">
      <Card
        title="Proposed pools"
        description={`Read ${plural(proposal.nodesRead, "node")} from ${server ?? "the cluster"}. GPU model names you set are kept for existing pools, and autoscaling bounds unless the Cluster Autoscaler states them; pools are matched by name. ${proposal.autoscaler}`}
      >
        {proposal.items.length === 0 ? (
          <EmptyState title="No worker nodes found">The cluster reported no nodes that could run workloads.</EmptyState>
        ) : (
          <DataTable caption="Proposed node pools" columns={["Pool", "Nodes", "GPUs per node", "Per node", "Status"]}>
            {proposal.items.map((item) => (
              <tr key={item.pool.name}>
                <Cell>
                  <span className="block font-medium text-slate-900">{item.pool.name}</span>
                  <span className="block whitespace-nowrap text-xs text-slate-500">
                    {item.proposal.groupedBy ? (
                      <>
                        by <span className="font-mono">{item.proposal.groupedBy}</span>
                      </>
                    ) : (
                      "no pool label"
                    )}
                  </span>
                </Cell>
                <Cell className="tabular-nums">
                  {item.pool.nodeCount}
                  <details className="text-xs text-slate-500">
                    <summary className="cursor-pointer whitespace-nowrap">names</summary>
                    <ul className="font-mono">
                      {item.proposal.nodeNames.map((n) => (
                        <li key={n}>{n}</li>
                      ))}
                    </ul>
                  </details>
                </Cell>
                <Cell>
                  {item.pool.gpuResource ? (
                    <>
                      <span className="block whitespace-nowrap">
                        {item.pool.gpusPerNode} × {item.pool.gpuModel}
                      </span>
                      <span className="block font-mono text-xs text-slate-500">{item.pool.gpuResource}</span>
                      {item.pool.gpuSharing !== "exclusive" && <span className="block text-xs text-slate-500">{sharingLabel(item.pool)}</span>}
                      <GpuProfilesList profiles={item.pool.gpuProfiles} />
                      <OfferedGpuResources offered={item.pool.offeredGpuResources} requestable={[item.pool.gpuResource, ...item.pool.gpuProfiles.map((x) => x.resource)]} />
                    </>
                  ) : (
                    <span className="text-slate-500">none</span>
                  )}
                </Cell>
                <Cell className="whitespace-nowrap tabular-nums">
                  <span className="block">{number.format(item.pool.cpuPerNode)} cores</span>
                  <span className="block text-xs text-slate-500">{gib(item.pool.memoryBytesPerNode)}</span>
                </Cell>
                <Cell className="min-w-64">
                  {item.problem ? (
                    <Badge tone="red">cannot import</Badge>
                  ) : item.status === "new" ? (
                    <Badge tone="green">new</Badge>
                  ) : item.status === "changed" ? (
                    <Badge tone="amber">changes</Badge>
                  ) : (
                    <Badge>unchanged</Badge>
                  )}
                  {item.problem && <p className="mt-1 text-xs text-red-700">{item.problem}</p>}
                  {item.changes.length > 0 && (
                    <ul className="mt-1 text-xs text-slate-700">
                      {item.changes.map((c) => (
                        <li key={c.field}>
                          {FIELD_LABELS[c.field]}: {show(c.field, c.from)} → {show(c.field, c.to)}
                        </li>
                      ))}
                    </ul>
                  )}
                  <HardwareFacts labels={item.pool.nodeLabels} taints={item.pool.nodeTaints} tiers={item.pool.tiers} />
                  {item.dedicatedTenant && <p className="mt-1 text-xs text-slate-500">stays dedicated to {item.dedicatedTenant}</p>}
                  {item.proposal.warnings.length > 0 && (
                    <ul className="mt-1 list-disc pl-4 text-xs text-amber-800">
                      {item.proposal.warnings.map((w) => (
                        <li key={w}>{w}</li>
                      ))}
                    </ul>
                  )}
                </Cell>
              </tr>
            ))}
          </DataTable>
        )}
        {(proposal.skipped.length > 0 || proposal.notOnCluster.length > 0) && (
          <div className="mt-4 space-y-1 text-sm text-slate-600">
            {proposal.skipped.length > 0 && (
              <p>
                Not counted: {proposal.skipped.map((s) => `${s.name} (${s.reason})`).join(", ")}.
              </p>
            )}
            {proposal.notOnCluster.length > 0 && <p>Pools the portal knows but no node belongs to, left as they are: {proposal.notOnCluster.join(", ")}.</p>}
          </div>
        )}
      </Card>
      <Card title="Import">
        {importable.length === 0 ? (
          <p className="text-sm text-slate-600">Nothing to import: the portal’s pools already match the cluster{proposal.items.some((i) => i.problem) ? ", apart from the pools that cannot be imported" : ""}.</p>
        ) : (
          <div className="space-y-3">
            <p className="text-sm text-slate-700">
              Creates {plural(importable.filter((i) => i.status === "new").length, "pool")} and updates {plural(importable.filter((i) => i.status === "changed").length, "pool")}, exactly as
              shown above. Every change is audited.
            </p>
            <ActionForm
              action={importNodePoolsAction}
              fields={[{ kind: "hidden", name: "pools", value: JSON.stringify(importable.map((i) => i.pool)) }]}
              submitLabel={`Import ${plural(importable.length, "pool")}`}
              pendingLabel="Importing…"
            />
          </div>
        )}
      </Card>
    </div>
  );
}
