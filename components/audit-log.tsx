import Link from "next/link";
import { buttonClass } from "./button-class";
import { Cell, DataTable } from "./table";
import { EmptyState } from "./ui";
import { Time } from "@/components/time";

export type AuditRowView = {
  seq: number;
  at: Date;
  actorLabel: string;
  tenantSlug: string | null;
  action: string;
  targetType: string;
  targetId: string;
  before: unknown;
  after: unknown;
};

const FILTERS = [
  { name: "actor", label: "Actor", placeholder: "email, name or id" },
  { name: "action", label: "Action", placeholder: "e.g. membership" },
  { name: "target", label: "Target", placeholder: "type or id" },
] as const;

/** Filters (a plain GET form, so a filtered view is a shareable URL), the table, and paging. */
export function AuditLog({
  basePath,
  exportPath,
  filter,
  events,
  showTenant,
  pageSize,
}: {
  basePath: string;
  exportPath: string;
  filter: Record<string, string | undefined>;
  events: AuditRowView[];
  showTenant: boolean;
  pageSize: number;
}) {
  const query = new URLSearchParams(Object.entries(filter).filter((e): e is [string, string] => Boolean(e[1]) && e[0] !== "before")).toString();
  const last = events.at(-1);
  return (
    <div className="space-y-4">
      <form method="get" action={basePath} className="flex flex-wrap items-end gap-3 rounded-lg border border-slate-200 bg-white p-4 text-sm" aria-label="Filter the audit log">
        {showTenant && <FilterInput name="tenant" label="Tenant" placeholder="slug" value={filter.tenant} />}
        {FILTERS.map((f) => (
          <FilterInput key={f.name} name={f.name} label={f.label} placeholder={f.placeholder} value={filter[f.name]} />
        ))}
        <FilterInput name="from" label="From" type="date" value={filter.from} />
        <FilterInput name="to" label="Before" type="date" value={filter.to} />
        <button type="submit" className={buttonClass("primary")}>
          Filter
        </button>
        <Link href={basePath} className="py-1.5 text-slate-600 hover:underline">
          Clear
        </Link>
        <a href={`${exportPath}${query ? `?${query}` : ""}`} className={`${buttonClass()} ml-auto`} download>
          Export CSV
        </a>
      </form>
      {events.length === 0 ? (
        <EmptyState title="No events match">Change or clear the filters.</EmptyState>
      ) : (
        <div className="rounded-lg border border-slate-200 bg-white px-5">
          <AuditEventsTable events={events} showTenant={showTenant} />
        </div>
      )}
      {last && events.length === pageSize && (
        <Link href={`${basePath}?${new URLSearchParams({ ...Object.fromEntries(new URLSearchParams(query)), before: String(last.seq) }).toString()}`} className={buttonClass()}>
          Older events
        </Link>
      )}
    </div>
  );
}

/** The events as a table: the audit pages' and a service account's history (its own page). */
export function AuditEventsTable({ events, showTenant, caption = "Audit events" }: { events: AuditRowView[]; showTenant: boolean; caption?: string }) {
  return (
    <DataTable caption={caption} columns={["#", "When", "Actor", ...(showTenant ? ["Tenant"] : []), "Action", "Target", "Change"]}>
      {events.map((e) => (
        <tr key={e.seq}>
          <Cell className="font-mono text-xs text-slate-500">{e.seq}</Cell>
          <Cell className="whitespace-nowrap text-slate-600"><Time at={e.at} /></Cell>
          <Cell>{e.actorLabel}</Cell>
          {showTenant && <Cell className="font-mono text-xs">{e.tenantSlug ?? "—"}</Cell>}
          <Cell className="font-mono text-xs">{e.action}</Cell>
          <Cell className="font-mono text-xs text-slate-600">
            {e.targetType} {e.targetId.slice(0, 12)}
          </Cell>
          <Cell>
            {e.before || e.after ? (
              <details>
                <summary className="cursor-pointer text-xs text-brand-700">details</summary>
                <pre tabIndex={0} className="mt-1 max-w-md overflow-x-auto whitespace-pre-wrap text-xs text-slate-700">
                  {e.before ? `before: ${JSON.stringify(e.before, null, 1)}\n` : ""}
                  {e.after ? `after: ${JSON.stringify(e.after, null, 1)}` : ""}
                </pre>
              </details>
            ) : (
              <span className="text-xs text-slate-500">—</span>
            )}
          </Cell>
        </tr>
      ))}
    </DataTable>
  );
}

function FilterInput({ name, label, placeholder, value, type = "text" }: { name: string; label: string; placeholder?: string; value?: string; type?: string }) {
  return (
    <label className="flex flex-col gap-1 text-xs font-medium text-slate-700">
      {label}
      <input type={type} name={name} defaultValue={value} placeholder={placeholder} className="rounded-md border border-slate-300 px-2 py-1 text-sm font-normal" />
    </label>
  );
}
