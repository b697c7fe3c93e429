import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { RequestTable } from "@/components/quota/request-table";
import { requestStatusLabel } from "@/components/quota/request-status";
import { Card, EmptyState } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { config } from "@/lib/config";
import { REQUEST_STATUSES, tenantRequests, type QuotaRequestStatus } from "@/lib/quota/queries";
import { tenantAccess } from "@/lib/tenancy/queries";
import { TenantHeader } from "../tenant-header";

export const metadata = { title: "Quota requests" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

function statusFilter(value: string | string[] | undefined): QuotaRequestStatus | undefined {
  return typeof value === "string" && (REQUEST_STATUSES as readonly string[]).includes(value) ? (value as QuotaRequestStatus) : undefined;
}

export default async function TenantRequestsPage({ params, searchParams }: { params: Promise<{ tenant: string }>; searchParams: SearchParams }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const detail = await tenantAccess(ctx, (await params).tenant);
  if (!detail) notFound();
  const all = await tenantRequests(ctx, detail.tenant.slug);
  if (!all) notFound();
  const status = statusFilter((await searchParams).status);
  const shown = status ? all.filter((r) => r.status === status) : all;
  const counts = Object.fromEntries(REQUEST_STATUSES.map((s) => [s, all.filter((r) => r.status === s).length])) as Record<QuotaRequestStatus, number>;
  const base = `/tenants/${detail.tenant.slug}/requests`;

  return (
    <>
      <TenantHeader detail={detail} />
      <Card title="Quota requests" description={`Every project's requests for more quota, newest first${all.length === 200 ? "; the latest 200 are shown" : ""}.`}>
        <div className="space-y-4">
          <nav aria-label="Filter requests by status">
            <ul className="flex flex-wrap gap-2 text-sm">
              {[{ key: "all", label: "all", href: base, count: all.length, current: !status }, ...REQUEST_STATUSES.map((s) => ({ key: s, label: requestStatusLabel(s), href: `${base}?status=${s}`, count: counts[s], current: status === s }))].map(
                (i) => (
                  <li key={i.key}>
                    <Link
                      href={i.href}
                      aria-current={i.current ? "page" : undefined}
                      className={`inline-flex items-center gap-2 rounded-md border px-3 py-1.5 ${i.current ? "border-brand-600 bg-brand-50 text-brand-900" : "border-slate-200 text-slate-700 hover:bg-slate-50"}`}
                    >
                      {i.label} <span className="font-semibold tabular-nums">{i.count}</span>
                    </Link>
                  </li>
                ),
              )}
            </ul>
          </nav>
          {shown.length === 0 ? (
            status ? (
              <EmptyState title={`No ${requestStatusLabel(status)} requests`}>
                <Link href={base} className="text-brand-700 hover:underline">
                  Show all requests
                </Link>
              </EmptyState>
            ) : (
              <EmptyState title="No quota requests yet">Project members ask for more quota from a project&apos;s Quota page.</EmptyState>
            )
          ) : (
            <RequestTable caption={status ? `Quota requests of ${detail.tenant.name}: ${requestStatusLabel(status)}` : `Quota requests of ${detail.tenant.name}`} requests={shown} currency={config().currency} showProject />
          )}
        </div>
      </Card>
    </>
  );
}
