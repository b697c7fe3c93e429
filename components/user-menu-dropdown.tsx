"use client";

import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { USER_MENU_BUTTON_CLASS, UserMenuButtonFace, type UserMenuProps } from "./user-menu";

/**
 * The signed-in person's menu (Radix), which takes the place of user-menu.tsx's plain button once
 * its code has arrived: open at once when the person had already pressed that button, and focused
 * when it held the focus, so the swap is not felt.
 */
export function UserMenuDropdown({ name, detail, signOutAction, openAtStart, focusAtStart }: UserMenuProps & { openAtStart: boolean; focusAtStart: boolean }) {
  return (
    <DropdownMenu.Root defaultOpen={openAtStart}>
      {/* Focused on mount when the plain button it replaces held the focus. */}
      <DropdownMenu.Trigger autoFocus={focusAtStart} className={USER_MENU_BUTTON_CLASS}>
        <UserMenuButtonFace name={name} />
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
