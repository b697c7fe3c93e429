"use client";

import { useState } from "react";
import { useOnDemand } from "./on-demand";

export type UserMenuProps = { name: string; detail: string; signOutAction: () => Promise<void> };

export const USER_MENU_BUTTON_CLASS = "flex items-center gap-2 rounded-md px-2 py-1.5 text-sm text-slate-700 hover:bg-slate-100";

/** What the account button shows: initials, and the name beside them from small screens up. */
export function UserMenuButtonFace({ name }: { name: string }) {
  return (
    <>
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
    </>
  );
}

const loadDropdown = () => import("./user-menu-dropdown").then((m) => m.UserMenuDropdown);

/**
 * The signed-in person's menu. Sign-out is a server action passed in, so this stays free of data
 * access. The page first draws a plain button; the menu's code (Radix, user-menu-dropdown.tsx) is
 * fetched when the person points at, focuses or presses it, and then takes its place.
 */
export function UserMenu(props: UserMenuProps) {
  const dropdown = useOnDemand(loadDropdown);
  const [pressed, setPressed] = useState(false);
  const [focused, setFocused] = useState(false);
  const Dropdown = dropdown.loaded;
  if (Dropdown) return <Dropdown {...props} openAtStart={pressed} focusAtStart={focused} />;
  return (
    <button
      type="button"
      aria-haspopup="menu"
      aria-expanded={false}
      className={USER_MENU_BUTTON_CLASS}
      onPointerEnter={dropdown.fetch}
      onFocus={() => {
        setFocused(true);
        dropdown.fetch();
      }}
      onBlur={() => setFocused(false)}
      onClick={() => {
        setPressed(true);
        dropdown.fetch();
      }}
    >
      <UserMenuButtonFace name={props.name} />
    </button>
  );
}
