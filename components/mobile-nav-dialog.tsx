"use client";

import * as Dialog from "@radix-ui/react-dialog";
import type { NavPlaces } from "@/lib/navigation/places";
import { OnDemandDialog, type OnDemandDialogProps } from "./on-demand-dialog";
import { SidebarNav } from "./sidebar-nav";

/** The sidebar as a panel on a narrow screen, loaded when first reached for (mobile-nav.tsx); on close focus goes back to the Menu button. */
export function MobileNavDialog({ places, ...dialog }: OnDemandDialogProps & { places: NavPlaces }) {
  return (
    <OnDemandDialog
      {...dialog}
      className="fixed inset-y-0 left-0 z-50 w-72 max-w-[85vw] overflow-y-auto bg-white p-4 shadow-xl focus:outline-none"
      // Following a link closes the menu: the page changes underneath it.
      onClick={(e) => {
        if ((e.target as HTMLElement).closest("a")) dialog.onOpenChange(false);
      }}
    >
      <div className="mb-4 flex items-center justify-between">
        <Dialog.Title className="text-base font-semibold text-slate-900">Menu</Dialog.Title>
        <Dialog.Close className="rounded-md px-2 py-1 text-sm text-slate-700 hover:bg-slate-100">Close</Dialog.Close>
      </div>
      <Dialog.Description className="sr-only">The places you can open in the portal.</Dialog.Description>
      <SidebarNav places={places} />
    </OnDemandDialog>
  );
}
