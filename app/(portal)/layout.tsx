import Link from "next/link";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { UserMenu } from "@/components/user-menu";
import { currentActor } from "@/lib/auth/current-actor";
import { can } from "@/lib/auth/policy";
import { systemClock } from "@/lib/clock";
import { signOutAction } from "../session-actions";

export default async function PortalLayout({ children }: { children: ReactNode }) {
  const actor = await currentActor();
  if (!actor) redirect("/sign-in");
  const isPlatformAdmin = can(actor, "platform.view", { kind: "platform" }, systemClock());
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl items-center justify-between gap-4 px-6 py-2">
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
          <UserMenu name={actor.displayName} detail={actor.email ?? "service account"} signOutAction={signOutAction} />
        </div>
      </header>
      <main className="mx-auto max-w-6xl px-6 py-8">{children}</main>
    </div>
  );
}
