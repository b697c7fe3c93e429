import { notFound, redirect } from "next/navigation";
import { IdleCostForm } from "@/components/spend/idle-cost-form";
import { PoolUtilisation } from "@/components/spend/pool-utilisation";
import { SpendView } from "@/components/spend/spend-view";
import { PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { can } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import { idleModeAt, loadIdleModeHistory, nextUtcDay } from "@/lib/metering/idle-mode";
import { platformSpendReport } from "@/lib/metering/report";
import { capacityOverview } from "@/lib/quota/capacity-queries";
import { spendPageData, type SearchParams } from "@/lib/server/spend-json";
import { setIdleCostModeAction } from "./actions";

export const metadata = { title: "Platform spend" };

export default async function PlatformSpendPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const cfg = config();
  const { data, query, urlErrors } = await spendPageData(ctx, await searchParams, (c, window) => platformSpendReport(c, window));
  const capacity = await capacityOverview(ctx, cfg.cluster);
  if (!capacity) notFound();
  const history = await loadIdleModeHistory(ctx.db);
  const tomorrow = nextUtcDay(ctx.now);
  const idleCostForm = can(ctx.actor, "platform.idle_cost.manage", { kind: "platform" }, ctx.now) ? (
    <IdleCostForm action={setIdleCostModeAction} current={idleModeAt(history, ctx.now)} tomorrow={idleModeAt(history, tomorrow)} effectiveFrom={tomorrow.toISOString().slice(0, 10)} />
  ) : undefined;
  return (
    <>
      <PageHeader
        crumbs={[{ href: "/admin", label: "Admin" }]}
        title="Platform spend"
        subtitle={`What every tenant's projects cost in ${data.currency}, and what the cluster's capacity costs while nobody uses it.`}
      />
      <SpendView
        dataUrl="/admin/spend/data"
        exportUrl="/admin/spend/export"
        initial={data}
        initialQuery={query}
        urlErrors={urlErrors}
        idleThreshold={cfg.gpuIdle.threshold}
        capacity={<PoolUtilisation overview={capacity} />}
        idleCostForm={idleCostForm}
      />
    </>
  );
}
