"use client";

import type { NavPlaces } from "@/lib/navigation/places";
import { useOnDemandDialog } from "./on-demand";

const loadDialog = () => import("./mobile-nav-dialog").then((m) => m.MobileNavDialog);

/**
 * The sidebar on a narrow screen: a "Menu" button opening it as a panel (Radix Dialog keeps focus
 * inside). The panel's code is fetched when the button is first pointed at, focused or pressed
 * (useOnDemandDialog), so wide screens, which never show the button, never load it.
 */
export function MobileNav({ places }: { places: NavPlaces }) {
  const { Dialog: NavDialog, buttonProps, dialogProps } = useOnDemandDialog(loadDialog);
  return (
    <>
      <button {...buttonProps} className="flex items-center gap-1.5 rounded-md px-2 py-1.5 text-sm text-slate-700 hover:bg-slate-100 lg:hidden">
        <svg aria-hidden viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.6" className="h-5 w-5">
          <path d="M3.5 5.5h13M3.5 10h13M3.5 14.5h13" strokeLinecap="round" />
        </svg>
        Menu
      </button>
      {NavDialog && <NavDialog {...dialogProps} places={places} />}
    </>
  );
}
