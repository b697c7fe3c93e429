import Link from "next/link";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { HeaderIndicators } from "@/components/header-indicators";
import { UserMenu } from "@/components/user-menu";
import { currentActor, currentContext } from "@/lib/auth/current-actor";
import { can } from "@/lib/auth/policy";
import { systemClock } from "@/lib/clock";
import { unreadNotificationCount } from "@/lib/notify/queries";
import { pendingRequestCount, pendingTenantRequests } from "@/lib/quota/queries";
import { signOutAction } from "../session-actions";

export default async function PortalLayout({ children }: { children: ReactNode }) {
  const actor = await currentActor();
  if (!actor) redirect("/sign-in");
  const isPlatformAdmin = can(actor, "platform.view", { kind: "platform" }, systemClock());
  const ctx = (await currentContext())!;
  // The bell's unread count; for platform admins, what waits in the approval queue (quota and tenant requests).
  const [unread, pendingQuota, pendingTenants] = await Promise.all([unreadNotificationCount(ctx), pendingRequestCount(ctx), pendingTenantRequests(ctx)]);
  const pending = pendingQuota === null ? null : pendingQuota + (pendingTenants?.length ?? 0);
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-x-4 gap-y-1 px-6 py-2">
          <nav aria-label="Main" className="flex items-center gap-6 text-sm">
            <Link href="/" className="flex items-center gap-2 font-semibold text-brand-900">
              <span aria-hidden className="inline-block h-5 w-5 rounded bg-brand-600" />
              Allot
            </Link>
            <Link href="/" className="text-slate-600 hover:text-slate-900">
              My tenants
            </Link>
            {isPlatformAdmin && (
              <Link href="/admin" className="text-slate-600 hover:text-slate-900">
                Admin
              </Link>
            )}
            <Link href="/api-docs" className="text-slate-600 hover:text-slate-900">
              API
            </Link>
          </nav>
          <div className="ml-auto flex items-center gap-2">
            <HeaderIndicators unread={unread} pending={pending} />
            <UserMenu name={actor.displayName} detail={actor.email ?? "service account"} signOutAction={signOutAction} />
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-6xl px-6 py-8">{children}</main>
    </div>
  );
}
