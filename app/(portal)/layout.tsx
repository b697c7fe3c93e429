import Link from "next/link";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { CommandPalette } from "@/components/command-palette";
import { HeaderIndicators } from "@/components/header-indicators";
import { MobileNav } from "@/components/mobile-nav";
import { SidebarNav } from "@/components/sidebar-nav";
import { UserMenu } from "@/components/user-menu";
import { currentContext } from "@/lib/auth/current-actor";
import { placesFor } from "@/lib/navigation/places";
import { unreadNotificationCount } from "@/lib/notify/queries";
import { pendingRequestCount, pendingTenantRequests } from "@/lib/quota/queries";
import { reachableTenants } from "@/lib/tenancy/queries";
import { signOutAction } from "../session-actions";
import { searchPaletteAction } from "./search-actions";

export default async function PortalLayout({ children }: { children: ReactNode }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const { actor } = ctx;
  // The bell's unread count; for platform admins, what waits in the approval queue (quota and tenant requests); the sidebar's places.
  const [unread, pendingQuota, pendingTenants, tenants] = await Promise.all([unreadNotificationCount(ctx), pendingRequestCount(ctx), pendingTenantRequests(ctx), reachableTenants(ctx)]);
  const pending = pendingQuota === null ? null : pendingQuota + (pendingTenants?.length ?? 0);
  const places = placesFor(actor, ctx.now, tenants);
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <div className="flex flex-wrap items-center gap-2 px-3 py-2 sm:gap-4 sm:px-6">
          <MobileNav places={places} />
          <Link href="/" className="flex items-center gap-2 font-semibold text-brand-900">
            <span aria-hidden className="inline-block h-5 w-5 rounded bg-brand-600" />
            Allot
          </Link>
          <CommandPalette search={searchPaletteAction} />
          <div className="ml-auto flex items-center gap-1 sm:gap-2">
            <HeaderIndicators unread={unread} pending={pending} />
            <UserMenu name={actor.displayName} detail={actor.email ?? "service account"} signOutAction={signOutAction} />
          </div>
        </div>
      </header>
      <div className="flex">
        <aside className="hidden w-60 shrink-0 border-r border-slate-200 bg-white px-3 py-6 lg:block">
          <SidebarNav places={places} />
        </aside>
        <main className="mx-auto min-w-0 max-w-6xl flex-1 px-4 py-8 sm:px-6">{children}</main>
      </div>
    </div>
  );
}
