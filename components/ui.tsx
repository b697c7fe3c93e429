import Link from "next/link";
import type { ReactNode } from "react";

/** Small presentational pieces shared by pages. No data access here. */

export function PageHeader({ title, subtitle, actions, crumbs }: { title: string; subtitle?: ReactNode; actions?: ReactNode; crumbs?: { href: string; label: string }[] }) {
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
      <div>
        {crumbs && crumbs.length > 0 && (
          <nav aria-label="Breadcrumb" className="mb-1 text-sm text-slate-500">
            {crumbs.map((c, i) => (
              <span key={c.href}>
                {i > 0 && <span className="mx-1.5">/</span>}
                <Link href={c.href} className="hover:text-slate-800 hover:underline">
                  {c.label}
                </Link>
              </span>
            ))}
          </nav>
        )}
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900">{title}</h1>
        {subtitle && <p className="mt-1 text-sm text-slate-600">{subtitle}</p>}
      </div>
      {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
    </div>
  );
}

export function Card({ title, description, children, actions }: { title?: string; description?: ReactNode; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="rounded-lg border border-slate-200 bg-white shadow-sm">
      {(title || actions) && (
        <header className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2 border-b border-slate-100 px-5 py-3">
          <div>
            {title && <h2 className="text-base font-semibold text-slate-900">{title}</h2>}
            {description && <p className="mt-0.5 text-sm text-slate-500">{description}</p>}
          </div>
          {actions}
        </header>
      )}
      <div className="px-5 py-4">{children}</div>
    </section>
  );
}

export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="rounded-md border border-dashed border-slate-300 bg-slate-50 px-6 py-8 text-center">
      <p className="font-medium text-slate-800">{title}</p>
      <div className="mx-auto mt-1 max-w-prose text-sm text-slate-600">{children}</div>
    </div>
  );
}

const badgeTones = {
  blue: "bg-brand-50 text-brand-700 ring-brand-100",
  slate: "bg-slate-100 text-slate-700 ring-slate-200",
  amber: "bg-amber-50 text-amber-800 ring-amber-200",
  red: "bg-red-50 text-red-700 ring-red-200",
  green: "bg-emerald-50 text-emerald-700 ring-emerald-200",
} as const;

export function Badge({ children, tone = "slate" }: { children: ReactNode; tone?: keyof typeof badgeTones }) {
  return <span className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${badgeTones[tone]}`}>{children}</span>;
}

export type Crumb = { href: string; label: string };

/** "My tenants › tenant": an outside collaborator, who sees only their project, gets no tenant step. */
export function tenantCrumbs(tenant: { slug: string; name: string }, collaborator: boolean): Crumb[] {
  return [{ href: "/", label: "My tenants" }, ...(collaborator ? [] : [{ href: `/tenants/${tenant.slug}`, label: tenant.name }])];
}

/** "My tenants › tenant › project › …extra", the trail of every page under a project. */
export function projectCrumbs(tenant: { slug: string; name: string }, project: { slug: string; name: string }, collaborator: boolean, ...extra: Crumb[]): Crumb[] {
  return [...tenantCrumbs(tenant, collaborator), { href: `/tenants/${tenant.slug}/projects/${project.slug}`, label: project.name }, ...extra];
}

export { formatDate, formatDateTime } from "@/lib/format";
