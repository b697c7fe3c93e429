import { notFound, redirect } from "next/navigation";
import { AuditLog } from "@/components/audit-log";
import { auditFilterFromSearchParams } from "@/lib/audit/filter-params";
import { listAuditEvents } from "@/lib/audit/queries";
import { currentContext } from "@/lib/auth/current-actor";
import { tenantAccess } from "@/lib/tenancy/queries";
import { TenantHeader } from "../tenant-header";

export const metadata = { title: "Audit log" };
const PAGE = 100;

export default async function TenantAuditPage({
  params,
  searchParams,
}: {
  params: Promise<{ tenant: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const detail = await tenantAccess(ctx, (await params).tenant);
  if (!detail?.canSeeAudit) notFound();
  // The tenant filter is fixed to this tenant, whatever the URL says.
  const { filter, raw } = auditFilterFromSearchParams(await searchParams, { limit: PAGE, tenant: detail.tenant.slug });
  const { events } = await listAuditEvents(ctx, filter);
  const base = `/tenants/${detail.tenant.slug}/audit`;
  return (
    <>
      <TenantHeader detail={detail} />
      <AuditLog basePath={base} exportPath={`${base}/export`} filter={raw} events={events} showTenant={false} pageSize={PAGE} />
    </>
  );
}
