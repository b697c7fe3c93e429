import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { ActionDialog } from "@/components/action-dialog";
import { type FieldSpec } from "@/components/action-form";
import { buttonClass } from "@/components/button-class";
import { plural } from "@/components/cluster-status";
import { GpuProfilesList, HardwareFacts, OfferedGpuResources } from "@/components/pool-hardware";
import { formatGpuProfiles } from "@/lib/quota/pool-profiles";
import { PlatformCohortsCard } from "@/components/quota/cohort-now-card";
import { SharingCard } from "@/components/quota/sharing-card";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState, formatDateTime, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { can } from "@/lib/auth/policy";
import { bytesQuantity } from "@/lib/cluster/quantity";
import { clusterRuntime } from "@/lib/cluster/runtime";
import { config } from "@/lib/config";
import { capacityOverview, poolTotalsAt, rateLabel, SIZE_HISTORY_ROWS, type CapacityOverview, type PoolView, type RateRowView, type ResourceCapacity } from "@/lib/quota/capacity-queries";
import { formatNodeLabels, formatNodeTaints, MAX_GPU_SLICES, schedulableGpusPerNode, sharingLabel, WORKLOAD_TIERS } from "@/lib/quota/pool-hardware";
import type { QuotaPolicy } from "@/lib/quota/policy";
import { platformShareNow } from "@/lib/quota/share-now";
import { addRateAction, createNodePoolAction, deleteNodePoolAction, setQuotaPolicyAction, updateNodePoolAction } from "./actions";
import { Time } from "@/components/time";
import { viewerTimeZone } from "@/lib/server/time-zone";
import { formatMoney, formatUnitPrice } from "@/lib/money";

export const metadata = { title: "Capacity and prices" };
export const dynamic = "force-dynamic";

const GiB = 2 ** 30;
const number = new Intl.NumberFormat("en-GB", { maximumFractionDigits: 3 });
const fmtCores = (n: number) => number.format(n);
const fmtTotal = (n: number) => new Intl.NumberFormat("en-GB", { maximumFractionDigits: 1 }).format(n);
const fmtGiB = (bytes: number) => new Intl.NumberFormat("en-GB", { maximumFractionDigits: 1 }).format(bytes / GiB);
const percent = (ratio: number) => `${new Intl.NumberFormat("en-GB", { maximumFractionDigits: ratio < 0.1 ? 1 : 0 }).format(ratio * 100)}%`;


/** An amount of a capacity resource, for totals: cores to a tenth, GiB to a tenth, whole GPUs. */
function amountOf(r: { key: string }, value: number): string {
  return r.key === "memory" ? `${fmtGiB(value)} GiB` : r.key === "cpu" ? `${fmtTotal(value)} cores` : `${number.format(value)} GPUs`;
}

export default async function CapacityPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  if (!can(ctx.actor, "capacity.manage", { kind: "platform" }, ctx.now)) notFound();
  const cfg = config();
  const [data, cohortsNow] = await Promise.all([capacityOverview(ctx, cfg.cluster), can(ctx.actor, "platform.cohorts.view", { kind: "platform" }, ctx.now) ? platformShareNow(ctx) : null]);
  if (!data) notFound();
  const live = clusterRuntime(cfg.cluster).mode === "live";
  const imported = Number((await searchParams).imported);

  return (
    <>
      <PageHeader
        crumbs={[{ href: "/admin", label: "Admin" }]}
        title="Capacity and prices"
        subtitle={`What the cluster can hold, what it costs (in ${cfg.currency}), and when requests are approved without a person.`}
      />
      {Number.isInteger(imported) && imported > 0 && (
        <p role="status" className="mb-6 rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-800">
          {plural(imported, "node pool")} imported from the cluster.
        </p>
      )}
      <div className="space-y-6">
        <PoolsCard data={data} live={live} />
        <CapacityCard data={data} />
        <SharingCard lines={data.sharing} live={live} />
        {cohortsNow && <PlatformCohortsCard now={cohortsNow} />}
        <RateCard data={data} currency={cfg.currency} now={ctx.now} />
        <RulesCard policy={data.policy} currency={cfg.currency} />
      </div>
    </>
  );
}

// ---------------------------------------------------------------- node pools

function memoryFieldValue(bytes: number): string {
  if (bytes % GiB === 0) return String(bytes / GiB);
  return bytes % 1024 === 0 ? bytesQuantity(bytes) : String(bytes / GiB);
}

function poolFields(data: CapacityOverview, pool?: PoolView): FieldSpec[] {
  return [
    { kind: "text", name: "name", label: "Name", placeholder: "h100-pool", defaultValue: pool?.name, hint: "As the cloud names the node pool (the value of its pool label)." },
    { kind: "text", name: "gpuModel", label: "GPU model", placeholder: "H100", defaultValue: pool?.gpuModel ?? "", hint: "What people ask for, e.g. H100 or A100 1g.10gb. Empty for a pool without GPUs." },
    {
      kind: "text",
      name: "gpuResource",
      label: "GPU resource",
      placeholder: "nvidia.com/gpu",
      defaultValue: pool?.gpuResource ?? "",
      hint: "The extended resource the device plugin advertises: nvidia.com/gpu, or a MIG profile such as nvidia.com/mig-1g.10gb.",
    },
    { kind: "number", name: "gpusPerNode", label: "GPUs per node", min: "0", defaultValue: String(pool?.gpusPerNode ?? ""), hint: "Of that resource: MIG instances for a MIG profile; physical GPUs when time-sliced (their slices are set below)." },
    {
      kind: "number",
      name: "nodeCount",
      label: "Nodes",
      min: "0",
      defaultValue: pool ? String(pool.nodeCount) : "",
      hint: "The nodes present now: what capacity, approvals and idle cost count. Each change is kept in the pool's size history.",
    },
    { kind: "number", name: "minNodes", label: "Minimum nodes (autoscaling)", min: "0", defaultValue: pool?.minNodes == null ? "" : String(pool.minNodes), hint: "Empty for a fixed-size pool." },
    {
      kind: "number",
      name: "maxNodes",
      label: "Maximum nodes (autoscaling)",
      min: "0",
      defaultValue: pool?.maxNodes == null ? "" : String(pool.maxNodes),
      hint: "What the autoscaler may grow the pool to. Not counted as capacity; the approval queue says when a request needs it.",
    },
    { kind: "text", name: "cpuPerNode", label: "CPU cores per node", placeholder: "64", defaultValue: pool ? String(pool.cpuPerNode) : "", hint: "Allocatable cores, e.g. 64 or 7910m." },
    {
      kind: "text",
      name: "memoryPerNode",
      label: "Memory per node (GiB)",
      placeholder: "256",
      defaultValue: pool ? memoryFieldValue(pool.memoryBytesPerNode) : "",
      hint: "Allocatable memory in GiB, or a quantity such as 1.8Ti.",
    },
    {
      kind: "select",
      name: "dedicatedTenant",
      label: "Dedicated to",
      defaultValue: pool?.dedicatedTenant?.slug ?? "",
      options: [{ value: "", label: "No tenant: shared" }, ...data.tenants.map((t) => ({ value: t.slug, label: `${t.name}${t.isolationTier === "dedicated" ? "" : " (shared tier)"}` }))],
    },
    {
      kind: "select",
      name: "gpuSharing",
      label: "GPU sharing",
      defaultValue: pool?.gpuSharing ?? "",
      options: [
        { value: "", label: "As the GPU resource says (MIG profile: MIG, else whole GPUs)" },
        { value: "exclusive", label: "Whole GPUs" },
        { value: "mig", label: "MIG instances" },
        { value: "time_sliced", label: "Time-sliced" },
      ],
      hint: "Time-sliced: each GPU is offered as several slices; name the model after the slice (e.g. L4 shared x4), its price is a slice's.",
    },
    {
      kind: "number",
      name: "gpuSlices",
      label: "Slices per GPU (time-slicing)",
      min: "1",
      max: String(MAX_GPU_SLICES),
      defaultValue: pool ? String(pool.gpuSlices) : "",
      hint: `The device plugin's replicas per GPU (nvidia.com/gpu.replicas), 1 to ${MAX_GPU_SLICES}; empty or 1 unless time-sliced. GPUs per node stay physical GPUs.`,
    },
    {
      kind: "textarea",
      name: "gpuProfiles",
      label: "Further requestable profiles (MIG mixed)",
      placeholder: "A100 3g.40gb = nvidia.com/mig-3g.40gb x 2",
      defaultValue: pool ? formatGpuProfiles(pool.gpuProfiles) : "",
      hint: "Only for MIG-partitioned nodes that offer several profiles: one model = resource x instances per node a line. Each is a GPU model of its own (its flavour, quota and price) on these nodes. Empty: the GPU model above is the only one.",
    },
    {
      kind: "textarea",
      name: "nodeLabels",
      label: "Node labels",
      placeholder: "cloud.google.com/gke-nodepool=h100-pool\nnvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3",
      defaultValue: pool ? formatNodeLabels(pool.nodeLabels) : "",
      hint: "Labels every node of the pool carries, one key=value a line: how the pool's nodes are selected.",
    },
    {
      kind: "textarea",
      name: "nodeTaints",
      label: "Node taints",
      placeholder: "nvidia.com/gpu=present:NoSchedule",
      defaultValue: pool ? formatNodeTaints(pool.nodeTaints) : "",
      hint: "One key=value:Effect (or key:Effect) a line; Effect is NoSchedule, PreferNoSchedule or NoExecute.",
    },
    {
      kind: "text",
      name: "tiers",
      label: "Workload tiers allowed",
      placeholder: "serving, training",
      defaultValue: pool?.tiers?.join(", ") ?? "",
      hint: `Any of ${WORKLOAD_TIERS.join(", ")}, separated by commas. Empty: every tier.`,
    },
  ];
}

function PoolsCard({ data, live }: { data: CapacityOverview; live: boolean }) {
  return (
    <Card
      title="Node pools"
      description="Pools of identical nodes. Capacity, approvals, overcommit and idle cost count the nodes present; the autoscaler maximum is what a pool could grow to, and the approval queue says when a request needs it."
      actions={
        <div className="flex shrink-0 gap-2">
          {live && (
            <Link href="/admin/capacity/import" className={buttonClass()}>
              Import from cluster
            </Link>
          )}
          <ActionDialog
            triggerLabel="New pool"
            title="New node pool"
            description="Describe a pool of identical nodes: its GPUs, how many nodes, and what each node can give to pods."
            submitLabel="Add pool"
            action={createNodePoolAction}
            fields={poolFields(data)}
          />
        </div>
      }
    >
      {data.pools.length === 0 ? (
        <EmptyState title="No node pools yet">Add the cluster’s node pools so requests can be checked against capacity.</EmptyState>
      ) : (
        <DataTable caption="Node pools" columns={["Pool", "GPUs", "Nodes", "Per node", "Pool total", "Dedicated to", ""]}>
          {data.pools.map((p) => (
            <tr key={p.id}>
              <Cell className="min-w-52 max-w-72">
                <span className="block whitespace-nowrap font-medium text-slate-900">{p.name}</span>
                <HardwareFacts labels={p.nodeLabels} taints={p.nodeTaints} tiers={p.tiers} />
              </Cell>
              <Cell>
                {p.gpuModel ? (
                  <>
                    <span className="block whitespace-nowrap">
                      {p.gpusPerNode} × {p.gpuModel}
                    </span>
                    <span className="block font-mono text-xs text-slate-500">{p.gpuResource}</span>
                    <span className="block whitespace-nowrap text-xs text-slate-500">
                      {sharingLabel(p)}
                      {p.gpuSharing === "time_sliced" && `: ${schedulableGpusPerNode(p)} slices a node`}
                    </span>
                    <GpuProfilesList profiles={p.gpuProfiles} />
                    <OfferedGpuResources offered={p.offeredGpuResources} requestable={[p.gpuResource, ...p.gpuProfiles.map((x) => x.resource)]} />
                  </>
                ) : (
                  <span className="text-slate-500">none</span>
                )}
              </Cell>
              <Cell className="whitespace-nowrap tabular-nums">
                {p.nodeCount} present
                {(p.minNodes !== null || p.maxNodes !== null) && (
                  <span className="block text-xs text-slate-500">
                    autoscaler min {p.minNodes ?? 0}, max {p.maxNodes ?? p.nodeCount}
                  </span>
                )}
              </Cell>
              <Cell className="whitespace-nowrap tabular-nums">
                <span className="block">{fmtCores(p.cpuPerNode)} cores</span>
                <span className="block text-xs text-slate-500">{fmtGiB(p.memoryBytesPerNode)} GiB</span>
              </Cell>
              <Cell className="whitespace-nowrap tabular-nums">
                {p.totals.gpus > 0 && (
                  <span className="block">
                    {number.format(p.totals.gpus)} {gpuUnitOf(p.gpuSharing)}
                    {p.gpuProfiles.length > 0 && ` ${p.gpuModel}`}
                    {p.gpuSharing === "time_sliced" && p.totals.physicalGpus !== null && <span className="block text-xs text-slate-500">of {number.format(p.totals.physicalGpus)} GPUs</span>}
                  </span>
                )}
                {p.totals.profiles.map((x) => (
                  <span key={x.model} className="block">
                    {number.format(x.gpus)} instances {x.model}
                  </span>
                ))}
                <span className="block">{fmtCores(p.totals.cpuCores)} cores</span>
                <span className="block text-xs text-slate-500">{fmtGiB(p.totals.memoryBytes)} GiB</span>
                {p.atMax.nodes > p.nodeCount && (
                  <span className="block text-xs text-slate-500">
                    up to{" "}
                    {p.atMax.totals.gpus > 0
                      ? // Every requestable profile grows with the nodes, a mixed MIG pool's further ones too.
                        [
                          `${number.format(p.atMax.totals.gpus)} ${gpuUnitOf(p.gpuSharing)}${p.gpuProfiles.length > 0 ? ` ${p.gpuModel}` : ""}`,
                          ...p.atMax.totals.profiles.map((x) => `${number.format(x.gpus)} instances ${x.model}`),
                        ].join(", ")
                      : `${fmtCores(p.atMax.totals.cpuCores)} cores`}{" "}
                    at {p.atMax.nodes} nodes
                  </span>
                )}
              </Cell>
              <Cell>{p.dedicatedTenant ? <Badge tone="blue">{p.dedicatedTenant.name}</Badge> : <span className="text-slate-600">shared</span>}</Cell>
              <Cell className="whitespace-nowrap text-right">
                <span className="inline-flex gap-3">
                  <ActionDialog
                    triggerLabel="Edit"
                    triggerKind="link"
                    title={`Edit ${p.name}`}
                    description="Change what the portal knows of this pool. The nodes themselves are not touched."
                    submitLabel="Save pool"
                    action={updateNodePoolAction}
                    fields={[{ kind: "hidden", name: "id", value: p.id }, { kind: "hidden", name: "version", value: String(p.version) }, ...poolFields(data, p)]}
                  />
                  <ActionDialog
                    triggerLabel="Delete"
                    triggerKind="link"
                    danger
                    title={`Delete ${p.name}?`}
                    description={`The portal stops counting this pool's capacity${p.gpuModel ? `, and ${p.gpuModel} can no longer be requested unless another pool offers it` : ""}. Existing grants and the nodes themselves are not touched.`}
                    submitLabel="Delete pool"
                    action={deleteNodePoolAction}
                    fields={[
                      { kind: "hidden", name: "id", value: p.id },
                      { kind: "hidden", name: "version", value: String(p.version) },
                    ]}
                  />
                </span>
              </Cell>
            </tr>
          ))}
        </DataTable>
      )}
      {!live && <p className="mt-4 text-sm text-slate-500">Importing pools from the cluster’s nodes needs a connected cluster; this portal runs record-only.</p>}
      <SizeHistory spans={data.sizeHistory} />
    </Card>
  );
}

// ---------------------------------------------------------------- capacity

/** What each pool held from when to when: idle and capacity cost price each hour on this, not on today's pools. */
function SizeHistory({ spans }: { spans: CapacityOverview["sizeHistory"] }) {
  if (spans.length === 0) return null;
  const present = new Set(spans.filter((s) => s.validTo === null).map((s) => s.poolId));
  return (
    <details className="mt-4">
      <summary className="cursor-pointer text-sm font-medium text-brand-700">
        Size history ({spans.length === SIZE_HISTORY_ROWS ? `latest ${SIZE_HISTORY_ROWS}` : plural(spans.length, "span")})
      </summary>
      <p className="mt-2 text-sm text-slate-600">What each pool held, from when to when. Idle and capacity cost price every hour on the pools as they were then.</p>
      <div className="mt-2">
        <DataTable caption="Pool size history, newest first" columns={["From", "Until", "Pool", "Nodes", "Pool total"]}>
          {spans.map((s) => {
            const totals = poolTotalsAt(s, s.nodeCount);
            return (
              <tr key={`${s.poolId}-${s.validFrom.toISOString()}`}>
                <Cell className="whitespace-nowrap"><Time at={s.validFrom} /></Cell>
                <Cell className="whitespace-nowrap text-slate-600">{s.validTo ? <Time at={s.validTo} /> : "now"}</Cell>
                <Cell className="whitespace-nowrap">
                  {s.poolName}
                  {!present.has(s.poolId) && s.validTo !== null && !spans.some((o) => o.poolId === s.poolId && o.validFrom.getTime() >= s.validTo!.getTime()) && (
                    <span className="block text-xs text-slate-500">deleted</span>
                  )}
                </Cell>
                <Cell className="whitespace-nowrap tabular-nums">{s.nodeCount}</Cell>
                <Cell className="whitespace-nowrap tabular-nums">
                  {totals.gpus > 0 && <span className="block">{number.format(totals.gpus)} {s.gpuModel} GPUs</span>}
                  <span className="block">{fmtCores(totals.cpuCores)} cores</span>
                  <span className="block text-xs text-slate-500">{fmtGiB(totals.memoryBytes)} GiB</span>
                </Cell>
              </tr>
            );
          })}
        </DataTable>
      </div>
    </details>
  );
}

function UseBar({ r }: { r: ResourceCapacity }) {
  const ratio = r.utilisation ?? (r.allocated > 0 ? Infinity : 0);
  const width = Math.min(100, Number.isFinite(ratio) ? ratio * 100 : 100);
  const tone = r.over ? "bg-red-500" : ratio >= 0.85 ? "bg-amber-500" : "bg-brand-600";
  return (
    <div className="flex items-center gap-3">
      <div className="h-2 w-40 overflow-hidden rounded-full bg-slate-100" aria-hidden>
        <div className={`h-full rounded-full ${tone}`} style={{ width: `${width}%` }} />
      </div>
      <span className={`tabular-nums ${r.over ? "font-medium text-red-700" : "text-slate-700"}`}>{Number.isFinite(ratio) ? percent(ratio) : "no capacity"}</span>
    </div>
  );
}

function CapacityCard({ data }: { data: CapacityOverview }) {
  return (
    <Card
      title="Capacity"
      description="Quota allocated to every open project (the starting quota plus grants in force) against what the nodes present hold, times the overcommit ratio. Approvals and the automatic rules check this figure, not the autoscaler maximum."
    >
      {data.pools.length === 0 ? (
        <EmptyState title="Nothing to measure against yet">Capacity appears once node pools are added.</EmptyState>
      ) : (
        <div className="space-y-6">
          <DataTable caption="Cluster capacity per resource" columns={["Resource", "Allocated / capacity", "Overcommit", "Use"]}>
            {data.resources.map((r) => (
              <tr key={r.key}>
                <Cell className="whitespace-nowrap font-medium text-slate-900">{r.label}</Cell>
                <Cell className="whitespace-nowrap tabular-nums">
                  {amountOf(r, r.allocated)} / {amountOf(r, r.capacity)}
                  {r.over && (
                    <span className="ml-2">
                      <Badge tone="red">over capacity</Badge>
                    </span>
                  )}
                  {r.capacityAtMax > r.capacity && <span className="block text-xs text-slate-500">up to {amountOf(r, r.capacityAtMax)} at the autoscaler maximum</span>}
                </Cell>
                <Cell className="whitespace-nowrap tabular-nums text-slate-700">
                  ×{number.format(r.overcommit)}
                  {r.overcommit !== 1 && <span className="block text-xs text-slate-500">of {amountOf(r, r.physical)} physical</span>}
                </Cell>
                <Cell>
                  <UseBar r={r} />
                </Cell>
              </tr>
            ))}
          </DataTable>
          <div>
            <h3 className="text-sm font-semibold text-slate-900">Each tenant’s share</h3>
            <p className="mt-0.5 text-sm text-slate-500">Of the capacity above, per resource (active tenants, open projects).</p>
            {data.tenantShares.length === 0 ? (
              <p className="mt-3 text-sm text-slate-500">No tenant holds quota yet.</p>
            ) : (
              <div className="mt-2">
                <DataTable caption="Tenant shares of capacity" columns={["Tenant", ...data.resources.map((r) => r.label)]}>
                  {data.tenantShares.map((t) => (
                    <tr key={t.slug}>
                      <Cell className="whitespace-nowrap font-medium text-slate-900">
                        <Link href={`/tenants/${t.slug}`} className="hover:underline">
                          {t.name}
                        </Link>
                      </Cell>
                      {data.resources.map((r) => {
                        const s = t.resources[r.key]!;
                        return (
                          <Cell key={r.key} className="whitespace-nowrap tabular-nums">
                            <span className="block">{s.share === null ? (s.allocated > 0 ? "no capacity" : "—") : percent(s.share)}</span>
                            <span className="block text-xs text-slate-500">{amountOf(r, s.allocated)}</span>
                          </Cell>
                        );
                      })}
                    </tr>
                  ))}
                </DataTable>
              </div>
            )}
          </div>
        </div>
      )}
    </Card>
  );
}

// ---------------------------------------------------------------- rate card

function RateState({ state }: { state: RateRowView["state"] }) {
  return state === "current" ? <Badge tone="green">in force</Badge> : state === "scheduled" ? <Badge tone="blue">scheduled</Badge> : <Badge>replaced</Badge>;
}

async function RateCard({ data, currency, now }: { data: CapacityOverview; currency: string; now: Date }) {
  const zone = await viewerTimeZone();
  const priced = data.rateCard.filter((l) => l.current || l.next);
  return (
    <Card
      title="Rate card"
      description={`Prices in ${currency}. A new price starts at its effective-from instant; earlier prices stay for the hours they covered.`}
      actions={
        <>
        <ActionDialog
          triggerLabel="New price"
          title="New price"
          description="Set a price for a resource from an instant on. Prices are never edited: a new one replaces the old from its start."
          submitLabel="Add price"
          action={addRateAction}
          fields={[
            {
              kind: "select",
              name: "resource",
              label: "Resource",
              options: data.rateCard.map((l) => ({ value: l.resource, label: `${l.label} (per ${l.unit})` })),
            },
            { kind: "text", name: "unitPrice", label: `Price (${currency})`, placeholder: "4.10", hint: "Per unit, at most 6 decimals." },
            { kind: "date", name: "effectiveFrom", label: "Effective from", hint: `From 00:00 UTC that day. Empty: now (${formatDateTime(now, zone)}).` },
          ]}
        />
        <ActionDialog
          triggerLabel="Price a custom meter"
          title="Price a custom meter"
          description="Any meter key the usage push API accepts (e.g. acc.widgets) can be priced, per its own unit. Until it is, its usage shows as unpriced in spend, never as zero cost."
          submitLabel="Add price"
          action={addRateAction}
          fields={[
            { kind: "text", name: "resource", label: "Meter key", placeholder: "acc.widgets", hint: "As pushed: lower case letters, digits and . _ -" },
            { kind: "text", name: "unit", label: "Unit", placeholder: "widget", hint: "What one pushed unit counts; the same for every price of this meter." },
            { kind: "text", name: "unitPrice", label: `Price per unit (${currency})`, placeholder: "0.25", hint: "At most 6 decimals." },
            { kind: "date", name: "effectiveFrom", label: "Effective from", hint: `From 00:00 UTC that day. Empty: now (${formatDateTime(now, zone)}).` },
          ]}
        />
        </>
      }
    >
      {priced.length === 0 ? (
        <EmptyState title="No prices yet">Add a price per GPU-hour for each GPU model, per core-hour, GiB-hour of memory, GiB-month of storage and 1,000 inference requests, so requests show what they cost.</EmptyState>
      ) : (
        <DataTable caption="Current prices" columns={["Resource", "Price", "In force since", "Next"]}>
          {data.rateCard.map((l) => (
            <tr key={l.resource}>
              <Cell className="whitespace-nowrap font-medium text-slate-900">{l.label}</Cell>
              <Cell className="whitespace-nowrap tabular-nums">
                {l.current ? (
                  <>
                    {formatUnitPrice(l.current.unitPrice, currency)} <span className="text-slate-500">per {l.unit}</span>
                  </>
                ) : (
                  <span className="inline-flex items-center gap-2">
                    <Badge tone="amber">no price</Badge>
                    <span className="text-xs text-slate-500">estimates leave it out</span>
                  </span>
                )}
              </Cell>
              <Cell className="whitespace-nowrap text-slate-600">{l.current ? <Time at={l.current.effectiveFrom} day /> : "—"}</Cell>
              <Cell className="whitespace-nowrap text-slate-600">
                {l.next ? (
                  <>
                    {formatUnitPrice(l.next.unitPrice, currency)} from <Time at={l.next.effectiveFrom} day />
                  </>
                ) : (
                  "—"
                )}
              </Cell>
            </tr>
          ))}
        </DataTable>
      )}
      {data.rateHistory.length > 0 && (
        <details className="mt-4">
          <summary className="cursor-pointer text-sm font-medium text-brand-700">Price history ({plural(data.rateHistory.length, "price")})</summary>
          <div className="mt-2">
            <DataTable caption="Price history, newest first" columns={["Effective from", "Resource", "Price", "", "Set by", "Recorded"]}>
              {data.rateHistory.map((r) => (
                <tr key={r.id}>
                  <Cell className="whitespace-nowrap"><Time at={r.effectiveFrom} /></Cell>
                  <Cell className="whitespace-nowrap">{rateLabel(r.resource)}</Cell>
                  <Cell className="whitespace-nowrap tabular-nums">{formatUnitPrice(r.unitPrice, currency)}</Cell>
                  <Cell>
                    <RateState state={r.state} />
                  </Cell>
                  <Cell className="text-slate-600">{r.createdBy ?? "system"}</Cell>
                  <Cell className="whitespace-nowrap text-slate-600"><Time at={r.createdAt} /></Cell>
                </tr>
              ))}
            </DataTable>
          </div>
        </details>
      )}
    </Card>
  );
}

// ---------------------------------------------------------------- approval rules

function RulesCard({ policy, currency }: { policy: QuotaPolicy; currency: string }) {
  const a = policy.autoApprove;
  const moneyOrNone = (v: number | null) => (v === null ? "" : String(v));
  const rules: [string, string][] = [
    ["Overcommit", `CPU ×${number.format(policy.overcommit.cpu)}, memory ×${number.format(policy.overcommit.memory)}, GPUs ×${number.format(policy.overcommit.gpu)}`],
    [
      "Automatic approval",
      a.enabled
        ? `On: requests that add no GPUs and at most ${number.format(a.maxCpuCores)} cores, ${number.format(a.maxMemoryGiB)} GiB memory and ${number.format(a.maxStorageGiB)} GiB storage${
            a.underMonthlyCost === null ? "" : `, or any request estimated under ${formatMoney(a.underMonthlyCost, currency)} a month`
          }, when the cluster can hold them${
            a.cumulativeFactor === null ? "" : `, and while the project's automatically approved grants in force stay within ${number.format(a.cumulativeFactor)}× those limits`
          }.`
        : "Off: a platform admin decides every request.",
    ],
    ["Second approval", policy.secondApprovalAboveMonthlyCost === null ? "Never needed." : `A second, different platform admin must approve requests estimated above ${formatMoney(policy.secondApprovalAboveMonthlyCost, currency)} a month.`],
    ["Expiry warning", policy.expiryWarningHours === 0 ? "Tenant admins are not warned before a time-bound grant ends." : `Tenant admins are warned ${plural(policy.expiryWarningHours, "hour")} before a time-bound grant ends.`],
  ];
  return (
    <Card
      title="Approval rules"
      description="How quota requests are checked and decided. Every automatic decision is audited as such."
      actions={
        <ActionDialog
          triggerLabel="Edit rules"
          triggerKind="secondary"
          title="Approval rules"
          description="Overcommit multiplies what the pools hold; automatic approval applies only when a request fits the cluster and every part of it has a price."
          submitLabel="Save rules"
          action={setQuotaPolicyAction}
          fields={[
            { kind: "text", name: "overcommitCpu", label: "CPU overcommit ratio", defaultValue: String(policy.overcommit.cpu), hint: "1 = no overcommit; 0.1 to 20." },
            { kind: "text", name: "overcommitMemory", label: "Memory overcommit ratio", defaultValue: String(policy.overcommit.memory) },
            { kind: "text", name: "overcommitGpu", label: "GPU overcommit ratio", defaultValue: String(policy.overcommit.gpu) },
            {
              kind: "select",
              name: "autoApproveEnabled",
              label: "Automatic approval",
              defaultValue: a.enabled ? "on" : "off",
              options: [
                { value: "on", label: "On" },
                { value: "off", label: "Off: a person decides every request" },
              ],
            },
            { kind: "text", name: "autoApproveMaxCpuCores", label: "At most CPU cores", defaultValue: String(a.maxCpuCores), hint: "Requests without GPUs up to these amounts are approved by rule." },
            { kind: "text", name: "autoApproveMaxMemoryGiB", label: "At most memory (GiB)", defaultValue: String(a.maxMemoryGiB) },
            { kind: "text", name: "autoApproveMaxStorageGiB", label: "At most storage (GiB)", defaultValue: String(a.maxStorageGiB) },
            {
              kind: "text",
              name: "autoApproveUnderMonthlyCost",
              label: `Or monthly estimate under (${currency})`,
              defaultValue: moneyOrNone(a.underMonthlyCost),
              hint: "Any request, GPUs included, estimated below this is approved by rule. Empty: no cost rule.",
            },
            {
              kind: "text",
              name: "autoApproveCumulativeFactor",
              label: "Cumulative cap (× the limits above)",
              defaultValue: a.cumulativeFactor === null ? "" : String(a.cumulativeFactor),
              hint: "A project's automatically approved grants in force, with the new request, stay within this many times each limit; beyond it a person decides. 1 to 100. Empty: each request is judged alone.",
            },
            {
              kind: "text",
              name: "secondApprovalAboveMonthlyCost",
              label: `Second approval above (${currency} a month)`,
              defaultValue: moneyOrNone(policy.secondApprovalAboveMonthlyCost),
              hint: "Empty: one approval is always enough. The approval queue's “large” filter uses this limit too (5,000 when empty).",
            },
            { kind: "text", name: "expiryWarningHours", label: "Warn before a grant ends (hours)", defaultValue: String(policy.expiryWarningHours), hint: "0 to 720." },
          ]}
        />
      }
    >
      <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[12rem_1fr]">
        {rules.map(([term, text]) => (
          <div key={term} className="contents">
            <dt className="font-medium text-slate-900">{term}</dt>
            <dd className="text-slate-700">{text}</dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}

/** What a pool's GPU count counts: slices of time-sliced GPUs, MIG instances, or whole GPUs. */
function gpuUnitOf(sharing: "exclusive" | "mig" | "time_sliced"): string {
  return sharing === "time_sliced" ? "slices" : sharing === "mig" ? "instances" : "GPUs";
}
