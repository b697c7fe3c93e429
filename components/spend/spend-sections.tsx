"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState } from "@/components/ui";
import type { ProjectSpend } from "@/lib/metering/spend";
import { divideMoney, minorDigits, shareOf, subtractMoney, sumMoney } from "@/lib/money";
import type { SpendData } from "@/lib/server/spend-json";
import { BudgetPanel } from "./budget-panel";
import { chargesIdle, IdleCostCard } from "./idle-cost";
import { changeAgainst, dayLong, money, percent, resourceLabel } from "./format";
import { PART_COLOURS } from "./palette";
import { hasNoUsage, pivotSeries } from "./pivot";
import { CostOverTimeChart, NamedCostBars, type BarSegment } from "./spend-charts";
import { CostDriversTable, CostOverTimeTable, Utilisation } from "./spend-table";

/** The spend page's cards for one report, by scope: project, tenant or platform. */

export interface SectionSlots {
  /** The project's budget form, for those who may set it. */
  budgetForm?: ReactNode;
  /** The platform page's pool utilisation, rendered on the server from the capacity overview. */
  capacity?: ReactNode;
  /** Utilisation below this share of GPU-hours is idle (ALLOT_GPU_IDLE_THRESHOLD). */
  idleThreshold: number;
  /** The platform page's idle cost rule form, for those who may change it. */
  idleCostForm?: ReactNode;
  /** The current query, carried to the links into narrower spend pages. */
  search: string;
}

const DAY_MS = 86_400_000;
const COLOURS = PART_COLOURS;

function Tile({ label, value, detail, testId }: { label: string; value: ReactNode; detail?: ReactNode; testId?: string }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm" data-testid={testId}>
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
      <dd className="mt-1 text-xl font-semibold tabular-nums text-slate-900">{value}</dd>
      {detail && <dd className="mt-0.5 text-xs text-slate-500">{detail}</dd>}
    </div>
  );
}

/** The window against the same length of time just before it: its spend and the change, to the cent. */
function PreviousTile({ data }: { data: SpendData }) {
  const c = data.currency;
  const before = data.previous;
  const { delta, text: change } = changeAgainst(data.totalCost, before.totalCost, c);
  const lastDay = new Date(Date.parse(before.to) - DAY_MS).toISOString().slice(0, 10);
  return (
    <Tile
      label="Previous period"
      value={money(before.totalCost, c)}
      detail={
        <>
          <span className={delta > 0 ? "font-medium text-amber-800" : delta < 0 ? "font-medium text-green-800" : ""} data-testid="previous-delta" data-delta={delta}>
            {change}
          </span>{" "}
          this window, against {dayLong(before.from.slice(0, 10))} – {dayLong(lastDay)}
        </>
      }
      testId="tile-previous"
    />
  );
}

/** A share for a table cell or a tile: "—" when there is no whole to be a share of. */
const shareText = (share: number | null) => (share === null ? "—" : percent(share));

/** The window's figures at a glance; this month's budget has its own card beside them. */
function Tiles({ data }: { data: SpendData }) {
  const c = data.currency;
  const digits = minorDigits(c);
  const days = Math.round((Date.parse(data.window.to) - Date.parse(data.window.from)) / DAY_MS);
  const tiles: ReactNode[] = [
    <Tile key="total" label="Spend in window" value={money(data.totalCost, c)} detail={`${money(divideMoney(data.totalCost, Math.max(1, days), digits), c)} a day on average`} testId="tile-total" />,
  ];
  tiles.push(<PreviousTile key="previous" data={data} />);
  if (data.cluster) {
    const k = data.cluster;
    tiles.push(
      <Tile key="cluster" label="Cluster cost" value={money(k.totalCost, c)} detail="capacity plus storage and meters" testId="tile-cluster" />,
      <Tile key="idle" label="Idle capacity" value={money(k.idleCost, c)} detail={k.idleShare === null ? "no priced capacity" : `${percent(k.idleShare)} of the cluster cost`} testId="tile-idle" />,
    );
  }
  if (data.byProject) {
    const idle = sumMoney(data.byProject.map((p) => p.gpuIdleCost), digits);
    tiles.push(<Tile key="gpuidle" label="GPU idle cost" value={money(idle, c)} detail="allocated GPUs that sat idle, where measured" testId="tile-gpu-idle" />);
  } else {
    const top = data.byResource.find((r) => r.cost > 0);
    const share = top ? shareOf(top.cost, data.totalCost, digits) : null;
    tiles.push(<Tile key="top" label="Top cost driver" value={top ? resourceLabel(top.resource) : "—"} detail={top && share !== null ? `${percent(share)} of the window's spend` : "nothing used"} />);
  }
  return <dl className={`grid content-start gap-4 ${data.cluster ? "sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-5" : ""}`}>{tiles}</dl>;
}

function Unpriced({ data }: { data: SpendData }) {
  if (data.unpricedResources.length === 0) return null;
  return (
    <div role="alert" className="rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900" data-testid="unpriced">
      <p className="font-medium">Some usage has no price on the rate card, so its cost is missing from these figures:</p>
      <ul className="mt-1 list-inside list-disc">
        {data.unpricedResources.map((r) => (
          <li key={r}>{resourceLabel(r)}</li>
        ))}
      </ul>
      <p className="mt-1 text-amber-800">A platform admin adds prices under Admin → Capacity and prices; costs are computed at the price in force at each hour.</p>
    </div>
  );
}

/** A window reaching past usage retention: its figures before the horizon are gone, which a page must say rather than show as no use. */
function RetentionCut({ data }: { data: SpendData }) {
  const cut = data.retention;
  if (!cut) return null;
  return (
    <div role="alert" className="rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900" data-testid="retention-cut">
      <p className="font-medium">
        {cut.window
          ? `Usage before ${dayLong(cut.retainedFrom)} is no longer kept, so these figures leave out the part of the window before that day.`
          : `Usage before ${dayLong(cut.retainedFrom)} is no longer kept, so the previous period these figures are compared with is only partly counted.`}
      </p>
      <p className="mt-1 text-amber-800">
        This portal keeps {cut.months} whole {cut.months === 1 ? "month" : "months"} of usage before the current one (ALLOT_USAGE_RETENTION_MONTHS). Exports made before then still hold the older figures.
      </p>
    </div>
  );
}

function NoUsage({ data }: { data: SpendData }) {
  // Nothing shown because retention dropped it is not "nothing was metered": the notice above says which days are gone.
  if (data.retention?.window) {
    return (
      <EmptyState title="No usage kept for this window">
        Usage before {dayLong(data.retention.retainedFrom)} is no longer kept, and nothing in this window was metered from that day on. Pick a window that starts on or after it.
      </EmptyState>
    );
  }
  return (
    <EmptyState title="No usage in this window">
      Nothing was metered {data.scope.kind === "project" ? "for this project" : data.scope.kind === "tenant" ? "for this tenant's projects" : "on the platform"} between these dates. Pick a longer range; usage
      appears here once it is metered (hourly).
    </EmptyState>
  );
}

function CostOverTime({ data, title }: { data: SpendData; title: string }) {
  const table = pivotSeries(data);
  const per = data.window.granularity === "month" ? "month" : data.window.granularity === "hour" ? "hour" : "day";
  return (
    <Card title={title} description={`Cost per ${per} in ${data.currency}, stacked by resource${data.budget?.monthlyAmount != null ? ", with the budget's share of each " + per + " (dashed)" : ""}. Hover a bar for its figures.`}>
      <figure aria-label={`${title}, ${data.currency}`}>
        <CostOverTimeChart table={table} currency={data.currency} monthlyBudget={data.budget?.monthlyAmount} />
        <figcaption className="sr-only">The same figures are in the table below.</figcaption>
      </figure>
      <CostOverTimeTable table={table} currency={data.currency} caption={`${title} (${data.currency})`} windowTotal={data.totalCost} unpriced={new Set(data.unpricedResources)} />
    </Card>
  );
}

function Drivers({ data }: { data: SpendData }) {
  return (
    <Card title="Top cost drivers" description="What the window's spend went on, most expensive first. GPU utilisation is the share of allocated GPU-hours the GPUs were busy, where measured.">
      <CostDriversTable data={data} caption="Cost by resource" />
    </Card>
  );
}

const projectSegments: BarSegment[] = [
  { key: "busy", label: "GPUs in use", colour: COLOURS.busy },
  { key: "idle", label: "GPUs idle", colour: COLOURS.idle },
  { key: "other", label: "CPU, memory, storage and more", colour: COLOURS.other },
];

function projectBarValues(p: ProjectSpend, digits: number) {
  return { busy: subtractMoney(p.gpuCost, p.gpuIdleCost, digits), idle: p.gpuIdleCost, other: subtractMoney(p.cost, p.gpuCost, digits) };
}

function ProjectsCard({ data, slots, title, showTenant }: { data: SpendData; slots: SectionSlots; title: string; showTenant: boolean }) {
  const projects = data.byProject ?? [];
  const c = data.currency;
  const digits = minorDigits(c);
  const charging = chargesIdle(data);
  return (
    <Card title={title} description="GPU idle cost is what the allocated GPUs cost while they sat idle, where utilisation is measured.">
      {projects.length === 0 ? (
        <p className="text-sm text-slate-500">No project used anything in this window.</p>
      ) : (
        <>
          <figure aria-label={`${title}, ${c}`}>
            <NamedCostBars rows={projects.map((p) => ({ name: showTenant ? `${p.tenantSlug}/${p.slug}` : p.name, values: projectBarValues(p, digits) }))} segments={projectSegments} currency={c} />
          </figure>
          <div className="mt-4">
            <DataTable caption={`${title} (${c})`} columns={[...(showTenant ? ["Tenant"] : []), "Project", "Spend", "Share", ...(charging ? ["Idle charged back"] : []), "GPU cost", "GPU utilisation", "GPU idle cost"]}>
              {projects.map((p) => (
                <tr key={p.projectId}>
                  {showTenant && <Cell className="whitespace-nowrap text-slate-600">{p.tenantSlug}</Cell>}
                  <Cell className="whitespace-nowrap">
                    <Link href={`/tenants/${p.tenantSlug}/projects/${p.slug}/spend${slots.search}`} className="font-medium text-brand-700 hover:underline">
                      {p.name}
                    </Link>
                    {p.gpuUtilization !== null && p.gpuUtilization < slots.idleThreshold && (
                      <span className="ml-2">
                        <Badge tone="amber">idle GPUs</Badge>
                      </span>
                    )}
                  </Cell>
                  <Cell className="whitespace-nowrap tabular-nums">{money(p.cost, c)}</Cell>
                  <Cell className="whitespace-nowrap tabular-nums text-slate-600">{shareText(shareOf(p.cost, data.totalCost, digits))}</Cell>
                  {charging && <Cell className="whitespace-nowrap tabular-nums">{money(p.idleChargedBack ?? 0, c)}</Cell>}
                  <Cell className="whitespace-nowrap tabular-nums">{p.gpuCost > 0 ? money(p.gpuCost, c) : <span className="text-slate-500">—</span>}</Cell>
                  <Cell className="whitespace-nowrap tabular-nums">
                    {p.gpuUtilization === null ? <span className="text-slate-500">{p.gpuCost > 0 ? "not measured" : "—"}</span> : <Utilisation ratio={p.gpuUtilization} low={slots.idleThreshold} />}
                  </Cell>
                  <Cell className={`whitespace-nowrap tabular-nums ${p.gpuIdleCost > 0 ? "text-amber-800" : "text-slate-500"}`}>{p.gpuIdleCost > 0 ? money(p.gpuIdleCost, c) : "—"}</Cell>
                </tr>
              ))}
            </DataTable>
          </div>
        </>
      )}
    </Card>
  );
}

function ClusterCard({ data }: { data: SpendData }) {
  const k = data.cluster!;
  const c = data.currency;
  const charging = chargesIdle(data);
  const rows: [string, number, string][] = [
    ["Capacity", k.capacityCost, "the node pools' GPUs, CPU and memory at the rate card, each hour as the pools were then"],
    ["Allocated to projects", k.allocatedCost, "GPU, CPU and memory the projects used"],
    [k.idleCost < 0 ? "Idle (negative: use beyond capacity)" : "Idle", k.idleCost, "capacity nobody used: capacity − allocated"],
    ["Storage, inference and meters", k.otherCost, "spend that is not node-pool capacity"],
  ];
  return (
    <Card title="Cluster cost and idle" description={charging ? "Idle capacity is charged back to the tenants by the rule stated under Idle capacity cost; what is left is shown apart." : "Idle capacity is shown beside the projects, never spread over them."}>
      <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[16rem_8rem_1fr]" data-testid="cluster-cost">
        {rows.map(([label, value, note]) => (
          <div key={label} className="contents">
            <dt className="font-medium text-slate-900">{label}</dt>
            <dd className={`tabular-nums sm:text-right ${label.startsWith("Idle") ? "font-medium text-amber-800" : "text-slate-900"}`}>{money(value, c)}</dd>
            <dd className="text-slate-500">{note}</dd>
          </div>
        ))}
        <div className="contents">
          <dt className="border-t border-slate-200 pt-2 font-semibold text-slate-900">Cluster cost</dt>
          <dd className="border-t border-slate-200 pt-2 font-semibold tabular-nums text-slate-900 sm:text-right">{money(k.totalCost, c)}</dd>
          <dd className="border-t border-slate-200 pt-2 text-slate-500">capacity + storage, inference and meters</dd>
        </div>
      </dl>
      <div className="mt-4 space-y-1 rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-700">
        <p data-testid="cluster-equation">
          {charging ? (
            <>
              Sum of projects + idle charged back + idle left apart = cluster cost: {money(data.totalCost, c)} + {money(data.idleCost.chargedBack, c)} + {money(data.idleCost.apart ?? 0, c)} ={" "}
              {money(k.totalCost, c)}.
            </>
          ) : (
            <>
              Sum of projects + idle = cluster cost: {money(data.totalCost, c)} + {money(k.idleCost, c)} = {money(k.totalCost, c)}.
            </>
          )}
        </p>
        <p data-testid="spend-equation">
          Allocated + storage, inference and meters = spend in window: {money(k.allocatedCost, c)} + {money(k.otherCost, c)} = {money(data.totalCost, c)}.
        </p>
      </div>
    </Card>
  );
}

const tenantSegments: BarSegment[] = [
  { key: "spend", label: "Tenant spend", colour: COLOURS.spend },
  { key: "charged", label: "Idle charged back", colour: COLOURS.other },
  { key: "idle", label: "Idle capacity", colour: COLOURS.idle },
];

function TenantsCard({ data, slots }: { data: SpendData; slots: SectionSlots }) {
  const tenants = data.byTenant ?? [];
  const k = data.cluster!;
  const c = data.currency;
  const cluster = k.totalCost;
  const digits = minorDigits(c);
  const charging = chargesIdle(data);
  // Under chargeback the idle line is what is left apart; a tenant's share of the cluster counts what it was charged too.
  const idleLine = charging ? (data.idleCost.apart ?? 0) : k.idleCost;
  const billOf = (t: (typeof tenants)[number]) => (charging ? sumMoney([t.cost, t.idleChargedBack ?? 0], digits) : t.cost);
  return (
    <Card
      title="Spend by tenant"
      description={
        charging
          ? "Each tenant's projects added up, the idle charged back to it, and the idle left apart: together they make the cluster cost."
          : "Each tenant's projects added up, and idle capacity as its own line: together they make the cluster cost."
      }
    >
      <figure aria-label={`Spend by tenant and idle capacity, ${c}`}>
        <NamedCostBars
          rows={[
            ...tenants.map((t) => ({ name: t.name, values: { spend: t.cost, ...(charging ? { charged: t.idleChargedBack ?? 0 } : {}) } })),
            { name: charging ? "Idle left apart" : "Idle capacity", values: { idle: idleLine } },
          ]}
          segments={charging ? tenantSegments : tenantSegments.filter((s) => s.key !== "charged")}
          currency={c}
        />
      </figure>
      <div className="mt-4">
        <DataTable caption={`Spend by tenant and idle capacity (${c})`} columns={["Tenant", "Spend", ...(charging ? ["Idle charged back"] : []), "Share of cluster cost"]}>
          {tenants.map((t) => (
            <tr key={t.tenantId}>
              <Cell className="whitespace-nowrap">
                <Link href={`/tenants/${t.slug}/spend${slots.search}`} className="font-medium text-brand-700 hover:underline">
                  {t.name}
                </Link>
              </Cell>
              <Cell className="whitespace-nowrap tabular-nums">{money(t.cost, c)}</Cell>
              {charging && <Cell className="whitespace-nowrap tabular-nums">{money(t.idleChargedBack ?? 0, c)}</Cell>}
              <Cell className="whitespace-nowrap tabular-nums text-slate-600">{shareText(shareOf(billOf(t), cluster, digits))}</Cell>
            </tr>
          ))}
          <tr>
            <Cell className="whitespace-nowrap font-medium text-amber-800">{charging ? "Idle left apart" : "Idle capacity"}</Cell>
            <Cell className="whitespace-nowrap tabular-nums text-amber-800">{money(idleLine, c)}</Cell>
            {charging && <Cell className="text-slate-500">—</Cell>}
            <Cell className="whitespace-nowrap tabular-nums text-slate-600">{shareText(charging ? shareOf(idleLine, cluster, digits) : k.idleShare)}</Cell>
          </tr>
          <tr className="bg-slate-50">
            <Cell className="font-semibold text-slate-900">Cluster cost</Cell>
            <Cell className="whitespace-nowrap font-semibold tabular-nums">{money(cluster, c)}</Cell>
            {charging && <Cell className="whitespace-nowrap tabular-nums text-slate-600">{money(data.idleCost.chargedBack, c)} of it</Cell>}
            <Cell className="text-slate-600">{tenants.length === 0 ? "no tenant used anything" : ""}</Cell>
          </tr>
        </DataTable>
      </div>
    </Card>
  );
}

function IdleGpuProjects({ data, slots }: { data: SpendData; slots: SectionSlots }) {
  const idle = (data.byProject ?? [])
    .filter((p) => p.gpuUtilization !== null && p.gpuUtilization < slots.idleThreshold && p.gpuIdleCost > 0)
    .sort((a, b) => b.gpuIdleCost - a.gpuIdleCost)
    .slice(0, 10);
  const c = data.currency;
  return (
    <Card title="Projects with idle GPUs" description={`GPU utilisation under ${percent(slots.idleThreshold)} of the allocated GPU-hours in this window, most idle cost first.`}>
      {idle.length === 0 ? (
        <p className="text-sm text-slate-500">No project held GPUs that sat idle in this window.</p>
      ) : (
        <DataTable caption={`Projects with idle GPUs (${c})`} columns={["Project", "GPU utilisation", "GPU idle cost", "GPU cost"]}>
          {idle.map((p) => (
            <tr key={p.projectId}>
              <Cell className="whitespace-nowrap">
                <Link href={`/tenants/${p.tenantSlug}/projects/${p.slug}/spend${slots.search}`} className="font-medium text-brand-700 hover:underline">
                  {p.tenantSlug}/{p.slug}
                </Link>
              </Cell>
              <Cell className="whitespace-nowrap tabular-nums">
                <Utilisation ratio={p.gpuUtilization!} low={slots.idleThreshold} />
              </Cell>
              <Cell className="whitespace-nowrap font-medium tabular-nums text-amber-800">{money(p.gpuIdleCost, c)}</Cell>
              <Cell className="whitespace-nowrap tabular-nums">{money(p.gpuCost, c)}</Cell>
            </tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}

/** The money rule, stated where the figures are (lib/money.ts). */
function RoundingRule({ data }: { data: SpendData }) {
  return (
    <p className="text-xs text-slate-500" data-testid="rounding-rule">
      Amounts are rounded to the {minorDigits(data.currency) === 0 ? "whole unit" : "cent"} once per line (a project&apos;s use of a resource on a UTC day, or in an hour in hourly views), half away from zero; every total
      is the sum of its rounded lines, so the parts shown always add up to it. The CSV export carries the same lines.
    </p>
  );
}

export function SpendSections({ data, slots }: { data: SpendData; slots: SectionSlots }) {
  const empty = hasNoUsage(data);
  const kind = data.scope.kind;
  const overTimeTitle = data.window.granularity === "month" ? "Monthly cost by resource" : data.window.granularity === "hour" ? "Hourly cost by resource" : "Daily cost by resource";
  return (
    <div className="space-y-6">
      {kind === "platform" || !data.budget ? (
        <Tiles data={data} />
      ) : (
        <div className="grid gap-6 lg:grid-cols-3">
          <Tiles data={data} />
          <div className="lg:col-span-2">
            <Card title="This month against budget">
              <BudgetPanel budget={data.budget} currency={data.currency} scope={kind} form={slots.budgetForm} />
            </Card>
          </div>
        </div>
      )}
      <RetentionCut data={data} />
      <Unpriced data={data} />
      {kind === "platform" && <ClusterCard data={data} />}
      <IdleCostCard data={data} form={slots.idleCostForm} />
      {empty ? (
        <NoUsage data={data} />
      ) : (
        <>
          {kind === "platform" && <TenantsCard data={data} slots={slots} />}
          {kind === "tenant" && <ProjectsCard data={data} slots={slots} title="Spend by project" showTenant={false} />}
          <CostOverTime data={data} title={overTimeTitle} />
          {kind === "platform" && <IdleGpuProjects data={data} slots={slots} />}
        </>
      )}
      {slots.capacity}
      {!empty && <Drivers data={data} />}
      <RoundingRule data={data} />
    </div>
  );
}
