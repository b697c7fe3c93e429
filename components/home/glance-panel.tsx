import Link from "next/link";
import type { ReactNode } from "react";

/** One figure block at the top of a home page: a titled region with a link to where the detail lives. */
export function GlancePanel({ title, href, linkLabel, children, testId }: { title: string; href?: string; linkLabel?: string; children: ReactNode; testId?: string }) {
  const id = `glance-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <section aria-labelledby={id} className="flex flex-col rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm" data-testid={testId}>
      <div className="mb-2 flex items-baseline justify-between gap-3">
        <h2 id={id} className="text-sm font-semibold text-slate-900">
          {title}
        </h2>
        {href && linkLabel && (
          <Link href={href} className="text-sm font-medium text-brand-700 underline-offset-2 hover:underline">
            {linkLabel}
          </Link>
        )}
      </div>
      <div className="flex-1 text-sm">{children}</div>
    </section>
  );
}

/** A used-of-limit bar; the figures beside it carry the meaning, so the bar itself is hidden from screen readers. */
export function UseBar({ share, over = false }: { share: number; over?: boolean }) {
  const pct = Math.max(0, Math.min(100, share * 100));
  return (
    <span aria-hidden className="mt-1 block h-1.5 w-full overflow-hidden rounded-full bg-slate-100">
      <span className={`block h-full rounded-full ${over ? "bg-red-600" : "bg-brand-600"}`} style={{ width: `${pct}%` }} />
    </span>
  );
}
