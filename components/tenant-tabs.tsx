"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

type Tab = "overview" | "requests" | "spend" | "collaborators" | "reviews" | "service-accounts" | "audit";

/**
 * Sub-navigation of a tenant; tabs the person may not use are left out by the page.
 * "Quota requests" follows "Overview": its permission (tenant.quota.view) has
 * the same readers as tenant.view, which the overview needs. "Spend" is
 * passed only to those the policy lets see the tenant's spend (tenant.spend.view).
 */
export function TenantTabs({ tenantSlug, tabs }: { tenantSlug: string; tabs: Tab[] }) {
  const pathname = usePathname();
  const labels = { overview: "Overview", requests: "Quota requests", spend: "Spend", collaborators: "Collaborators", reviews: "Access reviews", "service-accounts": "Service accounts", audit: "Audit log" } as const;
  const shown = tabs.includes("overview") && !tabs.includes("requests") ? tabs.flatMap((t): Tab[] => (t === "overview" ? ["overview", "requests"] : [t])) : tabs;
  return (
    <nav aria-label="Tenant" className="mb-6 flex flex-wrap gap-x-1 border-b border-slate-200 text-sm">
      {shown.map((tab) => {
        const href = tab === "overview" ? `/tenants/${tenantSlug}` : `/tenants/${tenantSlug}/${tab}`;
        const active = pathname === href;
        return (
          <Link
            key={tab}
            href={href}
            aria-current={active ? "page" : undefined}
            className={`-mb-px border-b-2 px-3 py-2 ${active ? "border-brand-600 font-medium text-brand-700" : "border-transparent text-slate-600 hover:text-slate-900"}`}
          >
            {labels[tab]}
          </Link>
        );
      })}
    </nav>
  );
}
