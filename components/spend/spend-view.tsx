"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useRef, useState, type ReactNode } from "react";
import { buttonClass } from "@/components/button-class";
import { Badge } from "@/components/ui";
import type { SpendData, SpendError, SpendQueryParams } from "@/lib/server/spend-json";
import { dayLong } from "./format";
import { SpendQueryProvider } from "./query-provider";
import { RangePicker } from "./range-picker";
import { SpendSections } from "./spend-sections";

/**
 * A spend page's live part: the range picker, and the report for the chosen
 * window fetched from the page's JSON route. Switching the range fetches in
 * the background and keeps the figures on screen ("Updating…") until the new
 * ones arrive; the address follows (history.replaceState), so a reload or a
 * shared link shows the same window. The first report comes with the page.
 */

class SpendLoadError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fieldErrors?: Record<string, string[]>,
  ) {
    super(message);
    this.name = "SpendLoadError";
  }
}

/** The query string of a spend query, in the order people read it; named ranges carry no dates. */
export function spendSearch(q: SpendQueryParams): string {
  const p = new URLSearchParams();
  if (q.range === "custom" || q.from !== undefined || q.to !== undefined) {
    p.set("range", "custom");
    if (q.from) p.set("from", q.from);
    if (q.to) p.set("to", q.to);
  } else if (q.range) p.set("range", q.range);
  if (q.granularity) p.set("granularity", q.granularity);
  return p.toString();
}

async function fetchSpend(url: string, signal: AbortSignal): Promise<SpendData> {
  const res = await fetch(url, { signal, headers: { Accept: "application/json" }, cache: "no-store" });
  // Without a session the proxy answers with the sign-in page instead.
  if (res.redirected || !res.headers.get("content-type")?.includes("application/json")) throw new SpendLoadError(401, "Your session has ended. Sign in again.");
  const body = (await res.json()) as unknown;
  if (!res.ok) {
    const e = (body as Partial<SpendError>).error;
    throw new SpendLoadError(res.status, e?.message ?? `The server answered ${res.status}.`, e?.fields);
  }
  return body as SpendData;
}

export interface SpendViewProps {
  dataUrl: string;
  exportUrl: string;
  initial: SpendData;
  initialQuery: SpendQueryParams;
  /** Problems with the address's query; the page then shows the default window. */
  urlErrors: Record<string, string[]> | null;
  idleThreshold: number;
  budgetForm?: ReactNode;
  capacity?: ReactNode;
  /** The platform page's idle cost rule form. */
  idleCostForm?: ReactNode;
}

export function SpendView(props: SpendViewProps) {
  return (
    <SpendQueryProvider>
      <LiveSpend {...props} />
    </SpendQueryProvider>
  );
}

function LiveSpend({ dataUrl, exportUrl, initial, initialQuery, urlErrors, idleThreshold, budgetForm, capacity, idleCostForm }: SpendViewProps) {
  const [query, setQuery] = useState(initialQuery);
  const [changed, setChanged] = useState(false);
  const search = spendSearch(query);
  const result = useQuery<SpendData, SpendLoadError>({
    queryKey: ["spend", dataUrl, search],
    queryFn: ({ signal }) => fetchSpend(`${dataUrl}${search ? `?${search}` : ""}`, signal),
    initialData: search === spendSearch(initialQuery) ? initial : undefined,
    placeholderData: keepPreviousData,
    retry: (count, error) => error.status >= 500 && count < 2,
  });
  // What stays on screen while a new window loads or after it failed: the last figures that arrived, and their query.
  const lastGood = useRef({ data: initial, search: spendSearch(initialQuery) });
  if (result.data && !result.isPlaceholderData) lastGood.current = { data: result.data, search };
  const shown = result.data ?? lastGood.current.data;
  // Export and links follow the figures on screen, not a window still loading or refused.
  const shownSearch = result.data && !result.isPlaceholderData ? search : lastGood.current.search;
  const suffix = shownSearch ? `?${shownSearch}` : "";
  const updating = result.isFetching;
  const error = result.isError ? result.error : null;

  const change = (next: SpendQueryParams) => {
    setQuery(next);
    setChanged(true);
    const s = spendSearch(next);
    window.history.replaceState(null, "", `${window.location.pathname}${s ? `?${s}` : ""}`);
  };

  const w = shown.window;
  const days = Math.round((Date.parse(w.to) - Date.parse(w.from)) / 86_400_000);
  const per = w.granularity === "month" ? "by month" : w.granularity === "hour" ? "by hour" : "by day";

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4 rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm">
        <div className="space-y-2">
          <RangePicker query={query} onChange={change} fieldErrors={error?.fieldErrors} defaultDays={{ from: w.from.slice(0, 10), to: w.lastDay }} />
          <p className="text-sm text-slate-600" data-testid="spend-window" data-from={w.from.slice(0, 10)} data-to={w.lastDay}>
            {dayLong(w.from.slice(0, 10))} – {dayLong(w.lastDay)} · {days} {days === 1 ? "day" : "days"}, {per} (UTC)
          </p>
        </div>
        <div className="flex items-center gap-3">
          <span role="status" aria-live="polite" className="text-sm text-slate-500">
            {updating ? "Updating…" : ""}
          </span>
          {shown.demo && (
            <span title="Some of these figures come from generated demo usage, not from a cluster.">
              <Badge tone="amber">Demo data</Badge>
            </span>
          )}
          <a href={`${exportUrl}${suffix}`} className={buttonClass()} download>
            Export CSV
          </a>
        </div>
      </div>

      {urlErrors && !changed && (
        <div role="alert" className="rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900">
          The address asked for a window that does not work ({Object.entries(urlErrors).map(([field, problems]) => `${field} ${problems.join("; ")}`).join(", ")}). Showing the last 30 days instead.
        </div>
      )}

      {error && (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800" data-testid="spend-error">
          <p className="font-medium">Could not load spend for this range.</p>
          <p className="mt-0.5">{error.message}</p>
          <div className="mt-2 flex gap-3">
            {error.status === 401 ? (
              <a href="/sign-in" className="font-medium underline">
                Sign in
              </a>
            ) : error.status >= 500 ? (
              <button type="button" className="font-medium underline" onClick={() => void result.refetch()}>
                Try again
              </button>
            ) : null}
          </div>
          {!result.data && <p className="mt-2 text-red-700">The figures below are still those of the previous window.</p>}
        </div>
      )}

      <div aria-busy={updating} className={`transition-opacity ${updating ? "opacity-60" : ""}`}>
        <SpendSections data={shown} slots={{ budgetForm, capacity, idleCostForm, idleThreshold, search: suffix }} />
      </div>
    </div>
  );
}
