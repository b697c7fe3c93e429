import { notFound, redirect } from "next/navigation";
import { SpendView } from "@/components/spend/spend-view";
import { currentContext } from "@/lib/auth/current-actor";
import { config } from "@/lib/config";
import { tenantSpendReport } from "@/lib/metering/report";
import { spendPageData, type SearchParams } from "@/lib/server/spend-json";
import { tenantAccess } from "@/lib/tenancy/queries";
import { TenantHeader } from "../tenant-header";

export async function generateMetadata({ params }: { params: Promise<{ tenant: string }> }) {
  return { title: `Spend · ${(await params).tenant}` };
}

export default async function TenantSpendPage({ params, searchParams }: { params: Promise<{ tenant: string }>; searchParams: Promise<SearchParams> }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const slug = (await params).tenant;
  // The report decides who sees a tenant's spend (admins and viewers): not_found for everyone else.
  const { data, query, urlErrors } = await spendPageData(ctx, await searchParams, (c, window) => tenantSpendReport(c, slug, window));
  const detail = await tenantAccess(ctx, slug);
  if (!detail) notFound();
  const base = `/tenants/${detail.tenant.slug}/spend`;
  return (
    <>
      <TenantHeader detail={detail} />
      <SpendView
        dataUrl={`${base}/data`}
        exportUrl={`${base}/export`}
        initial={data}
        initialQuery={query}
        urlErrors={urlErrors}
        idleThreshold={config().gpuIdle.threshold}
      />
    </>
  );
}
