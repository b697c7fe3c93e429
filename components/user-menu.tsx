"use client";

import * as DropdownMenu from "@radix-ui/react-dropdown-menu";

/** The signed-in person's menu. Sign-out is a server action passed in, so this stays free of data access. */
export function UserMenu({ name, detail, signOutAction }: { name: string; detail: string; signOutAction: () => Promise<void> }) {
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger className="flex items-center gap-2 rounded-md px-2 py-1.5 text-sm text-slate-700 hover:bg-slate-100">
        <span aria-hidden className="flex h-7 w-7 items-center justify-center rounded-full bg-brand-600 text-xs font-semibold text-white">
          {name
            .split(/\s+/)
            .map((w) => w[0])
            .slice(0, 2)
            .join("")
            .toUpperCase()}
        </span>
        {/* The name is the visible label (on phones only the initials show): the accessible name contains it. */}
        <span className="sr-only">Account menu for </span>
        <span className="sr-only sm:not-sr-only">{name}</span>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content align="end" sideOffset={6} className="z-50 min-w-56 rounded-md border border-slate-200 bg-white p-1 text-sm shadow-lg">
          <div className="px-2 py-1.5">
            <p className="font-medium text-slate-900">{name}</p>
            <p className="text-xs text-slate-500">{detail}</p>
          </div>
          <DropdownMenu.Separator className="my-1 h-px bg-slate-100" />
          <form action={signOutAction}>
            <DropdownMenu.Item asChild onSelect={(e) => e.preventDefault()}>
              <button type="submit" className="w-full rounded px-2 py-1.5 text-left text-slate-700 outline-none data-[highlighted]:bg-slate-100">
                Sign out
              </button>
            </DropdownMenu.Item>
          </form>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
