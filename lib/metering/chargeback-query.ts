import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { GiB } from "@/lib/quota/amounts";
import { poolSizesOverlapping } from "@/lib/quota/pool-sizes";
import { loadRates } from "@/lib/quota/store";
import { scaleDecimal, sumMinor, toMinor, type Minor } from "@/lib/money";
import { chargeBack, type GuaranteeWeight, type IdleCostMode, type IdlePeriod } from "./chargeback";
import { grantInForceSql } from "./guarantees-sql";
import { capacityCost } from "./idle";
import { idleModeAt, idleModeSpans, idleRuleSentence, loadIdleModeHistory } from "./idle-mode";
import { lineCostSql, moneyDigits } from "./money-sql";
import type { SpendWindow } from "./spend";
import { hourStart } from "./units";

const DAY_MS = 86_400_000;

/** The idle cost of a window as the rule in force treats it. */
export interface IdleChargeback {
  /** The rule in force at the end of the window (the one a change now would replace). */
  mode: IdleCostMode;
  /** The rule in a sentence, naming the days of each rule when it changed inside the window. */
  rule: string;
  /** The days' idle as charged back, per period (UTC day). */
  periods: IdlePeriod[];
  /** Idle charged back per project and per tenant, in minor units. */
  byProject: Map<string, Minor>;
  byTenant: Map<string, Minor>;
  /** All idle charged back, in minor units. */
  total: Minor;
  /** Names of the projects charged, which may have had no use in the window. */
  projects: Map<string, ChargedProject>;
}

export interface ChargedProject {
  slug: string;
  name: string;
  tenantId: string;
  tenantSlug: string;
  tenantName: string;
}

/**
 * Each UTC day of a window, up to the hour that has ended by `now` (as
 * clusterCost counts capacity): its idle (capacity cost of the day's pools at
 * the day's rates, rounded once, less the projects' pool cost of the day) and
 * the value of each project's guarantees in force hour by hour that day.
 */
export async function idleChargeback(db: Database, window: SpendWindow, now: Date): Promise<IdleChargeback> {
  const digits = moneyDigits();
  const to = new Date(Math.max(window.from.getTime(), Math.min(window.to.getTime(), hourStart(now).getTime())));
  const history = await loadIdleModeHistory(db);
  const spans = idleModeSpans(history, window.from, window.to);
  const rule = idleRuleSentence(spans);
  const mode = idleModeAt(history, new Date(window.to.getTime() - 1));
  const days = daysOf(window.from, to);
  const chargedDays = days.filter((d) => idleModeAt(history, d.from) === "chargeback");
  if (chargedDays.length === 0) return { mode, rule, periods: [], byProject: new Map(), byTenant: new Map(), total: 0, projects: new Map() };

  const first = chargedDays[0]!.from;
  const last = chargedDays[chargedDays.length - 1]!.to;
  const [poolSpans, rates, allocated, { weights, projects }] = await Promise.all([
    poolSizesOverlapping(db, first, last),
    loadRates(db),
    allocatedByDay(db, first, last, digits),
    guaranteeWeightsByDay(db, first, last),
  ]);
  const periods: IdlePeriod[] = chargedDays.map((d) => ({
    period: d.day,
    idle: capacityCost(poolSpans, rates, d.from, d.to, digits) - (allocated.get(d.day) ?? 0),
    mode: "chargeback",
    weights: weights.get(d.day) ?? [],
  }));
  const byProject = chargeBack(periods);
  const byTenant = new Map<string, Minor>();
  for (const [projectId, part] of byProject) {
    const tenantId = projects.get(projectId)!.tenantId;
    byTenant.set(tenantId, (byTenant.get(tenantId) ?? 0) + part);
  }
  return { mode, rule, periods, byProject, byTenant, total: sumMinor(byProject.values()), projects };
}

/** The UTC days from `from` to `to`, each cut to [from, to). */
export function daysOf(from: Date, to: Date): { day: string; from: Date; to: Date }[] {
  const days: { day: string; from: Date; to: Date }[] = [];
  for (let start = Math.floor(from.getTime() / DAY_MS) * DAY_MS; start < to.getTime(); start += DAY_MS) {
    days.push({ day: new Date(start).toISOString().slice(0, 10), from: new Date(Math.max(start, from.getTime())), to: new Date(Math.min(start + DAY_MS, to.getTime())) });
  }
  return days;
}

/** The projects' pool cost (GPU, CPU, memory) per UTC day: sums of the rollup's rounded lines, as clusterCost counts it. */
export async function allocatedByDay(db: Database, from: Date, to: Date, digits: number): Promise<Map<string, Minor>> {
  const rows = await rowsOf<{ day: string; cost: string }>(
    db,
    sql`
      select to_char(day, 'YYYY-MM-DD') as day, coalesce(sum(${lineCostSql(sql`cost`, digits)}), 0)::text as cost
      from usage_daily
      where (resource like 'gpu:%' or resource in ('cpu', 'memory'))
        and day >= ${from.toISOString().slice(0, 10)}::date and day < ${new Date(to.getTime() + DAY_MS - 1).toISOString().slice(0, 10)}::date
      group by day`,
  );
  return new Map(rows.map((r) => [r.day, toMinor(r.cost, digits)]));
}

/**
 * Per UTC day and project, the value of the guarantees in force: for each
 * hour, each line's guarantee (net of moves, never below zero) priced at the
 * rate in force that hour (GPU lines by their flavour's GPU rate, cores by
 * the CPU rate, memory by the GiB rate; storage is not pool capacity), summed
 * over the day's hours. Exact to the micro-unit, as weights need only be.
 */
async function guaranteeWeightsByDay(db: Database, from: Date, to: Date): Promise<{ weights: Map<string, GuaranteeWeight[]>; projects: Map<string, ChargedProject> }> {
  const rows = await rowsOf<{ day: string; project_id: string; tenant_id: string; slug: string; name: string; tenant_slug: string; tenant_name: string; weight: string }>(
    db,
    sql`
      with hours as (
        select generate_series(${from.toISOString()}::timestamptz, ${new Date(to.getTime() - 3_600_000).toISOString()}::timestamptz, interval '1 hour') as hour
      ),
      held as (
        select g.project_id, h.hour,
          case when l.resource in ('cpu', 'memory') then l.resource else 'gpu:' || l.flavor end as rate_key,
          case when l.resource = 'memory' then ${GiB}::numeric else 1 end as per_unit,
          sum(l.guarantee) as guarantee
        from hours h
        join quota_grants g on ${grantInForceSql(sql`h.hour`)}
        join quota_grant_lines l on l.grant_id = g.id
        where l.resource <> 'storage'
        group by g.project_id, h.hour, 3, 4
      )
      select to_char((held.hour at time zone 'UTC')::date, 'YYYY-MM-DD') as day, held.project_id, p.tenant_id,
        p.slug, p.name, t.slug as tenant_slug, t.name as tenant_name,
        round(sum(greatest(held.guarantee, 0) / held.per_unit * coalesce(r.unit_price, 0)), 6)::text as weight
      from held
      join projects p on p.id = held.project_id
      join tenants t on t.id = p.tenant_id
      left join lateral (
        select unit_price from rates where resource = held.rate_key and effective_from <= held.hour order by effective_from desc limit 1
      ) r on true
      group by 1, held.project_id, p.tenant_id, p.slug, p.name, t.slug, t.name`,
  );
  const weights = new Map<string, GuaranteeWeight[]>();
  const projects = new Map<string, ChargedProject>();
  for (const r of rows) {
    const weight = scaleDecimal(r.weight, 6);
    if (weight <= 0n) continue;
    weights.set(r.day, [...(weights.get(r.day) ?? []), { projectId: r.project_id, tenantId: r.tenant_id, weight }]);
    projects.set(r.project_id, { slug: r.slug, name: r.name, tenantId: r.tenant_id, tenantSlug: r.tenant_slug, tenantName: r.tenant_name });
  }
  return { weights, projects };
}
