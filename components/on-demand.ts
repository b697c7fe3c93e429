"use client";

import { useCallback, useRef, useState } from "react";

const loads = new WeakMap<() => Promise<unknown>, Promise<unknown>>();

/**
 * Code fetched on first use rather than with the page: the header's dialogs and menu (Radix) are
 * on every page but opened on few visits, so they stay out of each route's first-load JavaScript
 * (held to a budget by test/build-output). `fetch` starts the download (call it on intent: the
 * pointer over the control, focus on it, a click or a shortcut); `loaded` is the module's export
 * once it has arrived, shared by every caller of the same `load` (a function defined once, at
 * module level, around a dynamic import()).
 */
export function useOnDemand<T>(load: () => Promise<T>): { loaded: T | null; fetch: () => void } {
  const [loaded, setLoaded] = useState<{ value: T } | null>(null);
  const fetch = useCallback(() => {
    let started = loads.get(load) as Promise<T> | undefined;
    if (!started) {
      started = load();
      // A failed download (offline, a deploy replaced the chunk) is tried again on the next intent.
      started.catch(() => loads.delete(load));
      loads.set(load, started);
    }
    started.then(
      (value) => setLoaded((current) => current ?? { value }),
      () => undefined,
    );
  }, [load]);
  return { loaded: loaded?.value ?? null, fetch };
}

/**
 * A button that opens a dialog whose code arrives on first use: the button's props (an ordinary
 * button that fetches on intent and opens on press), the dialog's props, and the dialog component
 * once loaded (render it with `dialogProps`; it opens as soon as it arrives when already pressed).
 */
export function useOnDemandDialog<T>(load: () => Promise<T>) {
  const [open, setOpen] = useState(false);
  const { loaded, fetch } = useOnDemand(load);
  const button = useRef<HTMLButtonElement>(null);
  const buttonProps = {
    ref: button,
    type: "button" as const,
    "aria-haspopup": "dialog" as const,
    "aria-expanded": open,
    onPointerEnter: fetch,
    onFocus: fetch,
    onClick: () => {
      fetch();
      setOpen(true);
    },
  };
  return { Dialog: loaded, buttonProps, dialogProps: { open, onOpenChange: setOpen, returnFocusTo: button }, fetch, setOpen };
}
