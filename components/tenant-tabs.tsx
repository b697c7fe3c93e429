"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

/** Sub-navigation of a tenant; tabs the person may not use are left out by the page. */
export function TenantTabs({ tenantSlug, tabs }: { tenantSlug: string; tabs: ("overview" | "collaborators" | "service-accounts" | "audit")[] }) {
  const pathname = usePathname();
  const labels = { overview: "Overview", collaborators: "Collaborators", "service-accounts": "Service accounts", audit: "Audit log" } as const;
  return (
    <nav aria-label="Tenant" className="mb-6 flex gap-1 border-b border-slate-200 text-sm">
      {tabs.map((tab) => {
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
