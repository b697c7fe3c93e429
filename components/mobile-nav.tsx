"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useState } from "react";
import type { NavPlaces } from "@/lib/navigation/places";
import { SidebarNav } from "./sidebar-nav";

/** The sidebar on a narrow screen: a "Menu" button opening it as a panel (Radix Dialog keeps focus inside and returns it). */
export function MobileNav({ places }: { places: NavPlaces }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger className="flex items-center gap-1.5 rounded-md px-2 py-1.5 text-sm text-slate-700 hover:bg-slate-100 lg:hidden">
        <svg aria-hidden viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.6" className="h-5 w-5">
          <path d="M3.5 5.5h13M3.5 10h13M3.5 14.5h13" strokeLinecap="round" />
        </svg>
        Menu
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-slate-900/40" />
        <Dialog.Content
          className="fixed inset-y-0 left-0 z-50 w-72 max-w-[85vw] overflow-y-auto bg-white p-4 shadow-xl focus:outline-none"
          // Following a link closes the menu: the page changes underneath it.
          onClick={(e) => {
            if ((e.target as HTMLElement).closest("a")) setOpen(false);
          }}
        >
          <div className="mb-4 flex items-center justify-between">
            <Dialog.Title className="text-base font-semibold text-slate-900">Menu</Dialog.Title>
            <Dialog.Close className="rounded-md px-2 py-1 text-sm text-slate-700 hover:bg-slate-100">Close</Dialog.Close>
          </div>
          <Dialog.Description className="sr-only">The places you can open in the portal.</Dialog.Description>
          <SidebarNav places={places} />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
