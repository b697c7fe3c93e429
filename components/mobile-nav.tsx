"use client";

import { useRef, useState } from "react";
import type { NavPlaces } from "@/lib/navigation/places";
import { useOnDemand } from "./on-demand";

const loadDialog = () => import("./mobile-nav-dialog").then((m) => m.MobileNavDialog);

/**
 * The sidebar on a narrow screen: a "Menu" button opening it as a panel (Radix Dialog keeps focus
 * inside). The panel's code is fetched when the button is first pointed at, focused or pressed
 * (useOnDemand), so wide screens, which never show the button, never load it.
 */
export function MobileNav({ places }: { places: NavPlaces }) {
  const [open, setOpen] = useState(false);
  const dialog = useOnDemand(loadDialog);
  const button = useRef<HTMLButtonElement>(null);
  const NavDialog = dialog.loaded;
  return (
    <>
      <button
        ref={button}
        type="button"
        aria-haspopup="dialog"
        aria-expanded={open}
        onPointerEnter={dialog.fetch}
        onFocus={dialog.fetch}
        onClick={() => {
          dialog.fetch();
          setOpen(true);
        }}
        className="flex items-center gap-1.5 rounded-md px-2 py-1.5 text-sm text-slate-700 hover:bg-slate-100 lg:hidden"
      >
        <svg aria-hidden viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.6" className="h-5 w-5">
          <path d="M3.5 5.5h13M3.5 10h13M3.5 14.5h13" strokeLinecap="round" />
        </svg>
        Menu
      </button>
      {NavDialog && <NavDialog open={open} onOpenChange={setOpen} places={places} returnFocusTo={button} />}
    </>
  );
}
