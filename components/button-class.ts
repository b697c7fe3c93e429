/**
 * Button styles, in a plain module so server components (the sign-in page) can
 * call it too: a function exported from a "use client" module is only a client
 * reference on the server, and calling it there throws.
 */
export function buttonClass(kind: "primary" | "secondary" = "secondary"): string {
  return kind === "primary"
    ? "inline-flex items-center justify-center rounded-md bg-brand-600 px-3 py-1.5 text-sm font-medium text-white shadow-sm hover:bg-brand-700 disabled:opacity-60"
    : "inline-flex items-center justify-center rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 shadow-sm hover:bg-slate-50";
}
