"use client";

import { useState, type FormEvent } from "react";
import { buttonClass } from "@/components/button-class";
import { FieldError, inputClass } from "@/components/form";
import type { SpendQueryParams } from "@/lib/server/spend-json";

const RANGES = [
  { value: "7d", label: "7 days" },
  { value: "30d", label: "30 days" },
  { value: "90d", label: "90 days" },
  { value: "month", label: "This month" },
] as const;

/**
 * The spend window: named ranges as one group of toggle buttons, or a custom
 * pair of dates (both days included). Field errors from the data route are
 * shown beside the date they concern.
 */
export function RangePicker({
  query,
  onChange,
  fieldErrors,
  defaultDays,
}: {
  query: SpendQueryParams;
  onChange: (next: SpendQueryParams) => void;
  fieldErrors?: Record<string, string[]>;
  /** The window shown now, to start a custom range from. */
  defaultDays: { from: string; to: string };
}) {
  const custom = query.range === "custom" || query.from !== undefined || query.to !== undefined;
  const active = custom ? "custom" : (query.range ?? "30d");
  const [editing, setEditing] = useState(custom);
  const keep = query.granularity ? { granularity: query.granularity } : {};

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const text = (name: string) => {
      const v = data.get(name);
      return typeof v === "string" ? v : "";
    };
    onChange({ range: "custom", from: text("from"), to: text("to"), ...keep });
  };

  const pill = (selected: boolean) =>
    // Narrower and smaller on phones, so the five choices fit a 390 px screen instead of running past the card.
    `px-2 py-1.5 text-xs sm:px-3 sm:text-sm font-medium first:rounded-l-md last:rounded-r-md focus:z-10 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-600 ${
      selected ? "bg-brand-600 text-white" : "bg-white text-slate-700 hover:bg-slate-50"
    }`;

  return (
    <div className="flex flex-wrap items-start gap-3">
      <div role="group" aria-label="Range" className="inline-flex max-w-full divide-x divide-slate-300 rounded-md border border-slate-300 shadow-sm">
        {RANGES.map((r) => (
          <button
            key={r.value}
            type="button"
            aria-pressed={!editing && active === r.value}
            className={pill(!editing && active === r.value)}
            onClick={() => {
              setEditing(false);
              onChange({ range: r.value, ...keep });
            }}
          >
            {r.label}
          </button>
        ))}
        <button type="button" aria-pressed={editing} aria-expanded={editing} className={pill(editing)} onClick={() => setEditing(true)}>
          Custom…
        </button>
      </div>
      {editing && (
        <form onSubmit={submit} className="flex flex-wrap items-start gap-2" noValidate aria-label="Custom range">
          <DateField name="from" label="From" defaultValue={query.from ?? defaultDays.from} errors={fieldErrors?.from} />
          <DateField name="to" label="To" defaultValue={query.to ?? defaultDays.to} errors={fieldErrors?.to} />
          <button type="submit" className={`${buttonClass()} mt-5`}>
            Apply
          </button>
        </form>
      )}
    </div>
  );
}

function DateField({ name, label, defaultValue, errors }: { name: string; label: string; defaultValue: string; errors?: string[] }) {
  const id = `spend-${name}`;
  return (
    <div className="w-40">
      <label htmlFor={id} className="block text-xs font-medium text-slate-600">
        {label}
      </label>
      <input
        id={id}
        type="date"
        name={name}
        defaultValue={defaultValue}
        className={inputClass}
        aria-invalid={Boolean(errors?.length)}
        aria-describedby={errors?.length ? `${id}-error` : undefined}
      />
      <FieldError id={`${id}-error`} errors={errors} />
    </div>
  );
}
