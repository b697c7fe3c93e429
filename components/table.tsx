import type { ReactNode } from "react";

/**
 * A box that scrolls sideways on its own, so a table wider than a phone moves
 * inside it rather than the whole page. It can take the focus (a labelled
 * region), so people without a mouse can scroll it with the arrow keys.
 * Positioned, so what is absolutely placed inside (screen-reader-only text)
 * is clipped by it too rather than widening the page.
 */
export function ScrollBox({ label, className = "", children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div role="region" aria-label={label} tabIndex={0} className={`relative overflow-x-auto focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 ${className}`}>
      {children}
    </div>
  );
}

/** A plain, accessible data table: a caption for screen readers and column headers with scope. */
export function DataTable({ caption, columns, children }: { caption: string; columns: string[]; children: ReactNode }) {
  return (
    <ScrollBox label={caption} className="-mx-5">
      <table className="min-w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col" className="px-5 py-2 font-medium">
                {/* A header without a visible title (the row's actions) still names its column to screen readers. */}
                {c || <span className="sr-only">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </ScrollBox>
  );
}

export function Cell({ children, className = "", colSpan }: { children?: ReactNode; className?: string; colSpan?: number }) {
  return (
    <td className={`px-5 py-2.5 align-top ${className}`} colSpan={colSpan}>
      {children}
    </td>
  );
}
