"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useId } from "react";
import type { NavLink, NavPlaces } from "@/lib/navigation/places";

/**
 * The portal's main navigation: the places lib/navigation/places.ts decided
 * this person may open, grouped. The current page is marked for screen readers
 * (aria-current) and by colour. Used in the desktop sidebar and in the phone menu.
 */
export function SidebarNav({ places }: { places: NavPlaces }) {
  const pathname = usePathname();
  const ids = useId();
  return (
    <nav aria-label="Main" className="space-y-5 text-sm">
      <Section places={places.personal} pathname={pathname} />
      {places.tenants.length > 0 && (
        <div>
          <SectionLabel id={`${ids}-tenants`}>Tenants</SectionLabel>
          <ul aria-labelledby={`${ids}-tenants`} className="space-y-0.5">
            {places.tenants.map((t) => (
              <li key={t.href}>
                {t.linked ? <Place link={t} pathname={pathname} strong /> : <span className="block px-2 py-1 font-medium text-slate-700">{t.label}</span>}
                {t.projects.length > 0 && (
                  <ul aria-label={`${t.label}: projects`} className="ml-3 border-l border-slate-200 pl-2">
                    {t.projects.map((p) => (
                      <li key={p.href}>
                        <Place link={p} pathname={pathname} />
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
      {places.platform.length > 0 && <Section label="Platform" id={`${ids}-platform`} places={places.platform} pathname={pathname} />}
      <Section label="More" id={`${ids}-more`} places={places.more} pathname={pathname} />
    </nav>
  );
}

function SectionLabel({ id, children }: { id: string; children: string }) {
  return (
    <p id={id} className="mb-1 px-2 text-xs font-semibold uppercase tracking-wide text-slate-600">
      {children}
    </p>
  );
}

function Section({ label, id, places, pathname }: { label?: string; id?: string; places: NavLink[]; pathname: string }) {
  return (
    <div>
      {label && id && <SectionLabel id={id}>{label}</SectionLabel>}
      <ul aria-labelledby={label ? id : undefined} className="space-y-0.5">
        {places.map((p) => (
          <li key={p.href}>
            <Place link={p} pathname={pathname} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function Place({ link, pathname, strong }: { link: NavLink; pathname: string; strong?: boolean }) {
  const current = pathname === link.href;
  // A page below this place (a project's quota page under the project) keeps the place lit, without claiming to be it.
  const within = !current && link.href !== "/" && pathname.startsWith(`${link.href}/`);
  return (
    <Link
      href={link.href}
      aria-current={current ? "page" : undefined}
      className={`block truncate rounded-md px-2 py-1 ${current ? "bg-brand-50 font-medium text-brand-700" : within ? "text-brand-700" : "text-slate-700 hover:bg-slate-100 hover:text-slate-900"} ${strong ? "font-medium" : ""}`}
    >
      {link.label}
    </Link>
  );
}
