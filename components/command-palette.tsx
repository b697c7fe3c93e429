"use client";

import { useEffect } from "react";
import type { PaletteItem } from "@/lib/search/palette";
import { useOnDemandDialog } from "./on-demand";

export type PaletteAnswer = { items: PaletteItem[]; message: null } | { items: []; message: string };

const loadDialog = () => import("./command-palette-dialog").then((m) => m.CommandPaletteDialog);

/**
 * The command palette (Ctrl-K or Cmd-K anywhere, or the Search button): a
 * combobox over what the server finds for this person (searchPaletteAction:
 * the policy decides every row). Arrow keys move through the results, Enter
 * opens one. The dialog's code (command-palette-dialog.tsx) is fetched when
 * the person first points at, focuses or uses the button or the shortcut, so
 * it is not part of every page's first load; it opens as soon as it arrives.
 * A page whose content has its own Ctrl-K search (the API reference marks its
 * host with `data-owns-search-shortcut`) keeps the shortcut; the Search
 * button still opens the palette there.
 */
export function CommandPalette({ search }: { search: (query: string) => Promise<PaletteAnswer> }) {
  const { Dialog: PaletteDialog, buttonProps, dialogProps, fetch, setOpen } = useOnDemandDialog(loadDialog);
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "k" && !document.querySelector("[data-owns-search-shortcut]")) {
        e.preventDefault();
        fetch();
        setOpen((o) => !o);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [fetch, setOpen]);
  return (
    <>
      <button
        {...buttonProps}
        aria-keyshortcuts="Control+K Meta+K"
        className="flex items-center gap-2 rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-slate-700 hover:bg-slate-50 sm:min-w-52"
      >
        <svg aria-hidden viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.6" className="h-4 w-4">
          <circle cx="9" cy="9" r="5.25" />
          <path d="m13 13 3.5 3.5" strokeLinecap="round" />
        </svg>
        Search
        <kbd aria-hidden className="ml-auto hidden rounded border border-slate-300 px-1 font-sans text-xs text-slate-600 sm:inline">
          Ctrl K
        </kbd>
      </button>
      {PaletteDialog && <PaletteDialog {...dialogProps} search={search} />}
    </>
  );
}
