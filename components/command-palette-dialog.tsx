"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import type { PaletteItem, PaletteKind } from "@/lib/search/palette";
import type { PaletteAnswer } from "./command-palette";
import { OnDemandDialog, type OnDemandDialogProps } from "./on-demand-dialog";

type State = { kind: "idle" } | { kind: "searching" } | { kind: "answered"; query: string; answer: PaletteAnswer } | { kind: "failed" };

const GROUPS: readonly { kind: PaletteKind; label: string }[] = [
  { kind: "project", label: "Projects" },
  { kind: "tenant", label: "Tenants" },
  { kind: "request", label: "Quota requests" },
  { kind: "person", label: "People" },
  { kind: "service_account", label: "Service accounts" },
];
/** Wait this long after the last key before asking the server. */
const DEBOUNCE_MS = 200;

/**
 * The palette's dialog, loaded when the person first reaches for it (command-palette.tsx): a
 * combobox over what the server finds for this person. Radix Dialog keeps focus inside; on close
 * focus goes back to the Search button (OnDemandDialog).
 */
export function CommandPaletteDialog({ search, ...dialog }: OnDemandDialogProps & { search: (query: string) => Promise<PaletteAnswer> }) {
  return (
    <OnDemandDialog {...dialog} className="fixed left-1/2 top-[10vh] z-50 w-[min(40rem,calc(100vw-1.5rem))] -translate-x-1/2 rounded-lg bg-white shadow-xl focus:outline-none">
      {dialog.open && <PaletteBody search={search} onOpen={() => dialog.onOpenChange(false)} />}
    </OnDemandDialog>
  );
}

function PaletteBody({ search, onOpen }: { search: (query: string) => Promise<PaletteAnswer>; onOpen: () => void }) {
  const router = useRouter();
  const ids = useId();
  const [query, setQuery] = useState("");
  const [state, setState] = useState<State>({ kind: "idle" });
  const [active, setActive] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    const q = query.trim();
    if (q === "") return;
    const ticket = ++latest.current;
    const timer = setTimeout(() => {
      search(q).then(
        (answer) => {
          if (ticket !== latest.current) return;
          setState({ kind: "answered", query: q, answer });
          setActive(0);
        },
        () => ticket === latest.current && setState({ kind: "failed" }),
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [query, search]);

  const items = state.kind === "answered" ? ordered(state.answer.items) : [];
  const optionId = (i: number) => `${ids}-option-${i}`;
  const go = (item: PaletteItem | undefined) => {
    if (!item) return;
    onOpen();
    router.push(item.href);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "ArrowDown" && items.length) {
      e.preventDefault();
      setActive((a) => (a + 1) % items.length);
    } else if (e.key === "ArrowUp" && items.length) {
      e.preventDefault();
      setActive((a) => (a - 1 + items.length) % items.length);
    } else if (e.key === "Enter") {
      e.preventDefault();
      go(items[active]);
    }
  };

  return (
    <>
      <Dialog.Title className="sr-only">Search the portal</Dialog.Title>
      <Dialog.Description className="sr-only">Tenants, projects, people, service accounts and quota requests you can open. Arrow keys choose a result, Enter opens it.</Dialog.Description>
      <div className="border-b border-slate-200 px-4 py-3">
        <label htmlFor={`${ids}-input`} className="mb-1 block text-xs font-medium text-slate-600">
          Find a tenant, project, person, service account or request
        </label>
        <input
          id={`${ids}-input`}
          role="combobox"
          aria-expanded={items.length > 0}
          aria-controls={`${ids}-listbox`}
          aria-autocomplete="list"
          aria-activedescendant={items.length ? optionId(active) : undefined}
          autoComplete="off"
          maxLength={100}
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setState(e.target.value.trim() === "" ? { kind: "idle" } : { kind: "searching" });
          }}
          onKeyDown={onKeyDown}
          className="w-full rounded-md border border-slate-300 px-3 py-2 text-base text-slate-900"
        />
      </div>
      <div className="max-h-[60vh] overflow-y-auto px-2 py-2">
        <p role="status" className="px-2 py-1 text-sm text-slate-600 empty:hidden">
          {statusText(state, items.length)}
        </p>
        <ul id={`${ids}-listbox`} role="listbox" aria-label="Results" className={items.length ? "" : "hidden"}>
          {GROUPS.filter((g) => items.some((i) => i.kind === g.kind)).map((g) => (
            <li key={g.kind} role="presentation">
              <p id={`${ids}-${g.kind}`} aria-hidden className="px-2 pb-1 pt-2 text-xs font-semibold uppercase tracking-wide text-slate-600">
                {g.label}
              </p>
              <ul role="group" aria-labelledby={`${ids}-${g.kind}`}>
                {items.map((item, i) =>
                  item.kind !== g.kind ? null : (
                    <li
                      key={item.id}
                      id={optionId(i)}
                      role="option"
                      aria-selected={i === active}
                      onMouseMove={() => setActive(i)}
                      onClick={() => go(item)}
                      className={`cursor-pointer rounded-md px-2 py-1.5 ${i === active ? "bg-brand-50" : ""}`}
                    >
                      <span className="block text-sm font-medium text-slate-900">{item.label}</span>
                      <span className="block truncate text-xs text-slate-600">{item.detail}</span>
                    </li>
                  ),
                )}
              </ul>
            </li>
          ))}
        </ul>
      </div>
    </>
  );
}

/** The results in the order the groups are shown, so arrow keys move down the screen. */
function ordered(items: readonly PaletteItem[]): PaletteItem[] {
  return GROUPS.flatMap((g) => items.filter((i) => i.kind === g.kind));
}

function statusText(state: State, count: number): string {
  if (state.kind === "idle") return "Type a name, a slug, an email or words from a request.";
  if (state.kind === "searching") return "Searching…";
  if (state.kind === "failed") return "The search failed. Try again in a moment.";
  if (state.answer.message !== null) return state.answer.message;
  if (count === 0) return `Nothing you can open matches “${state.query}”.`;
  return `${count} result${count === 1 ? "" : "s"}.`;
}
