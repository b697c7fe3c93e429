import Link from "next/link";
import { redirect } from "next/navigation";
import { ActionForm } from "@/components/action-form";
import { Card, EmptyState, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { myNotifications } from "@/lib/notify/queries";
import { markNotificationsReadAction } from "./actions";
import { Time } from "@/components/time";

export const metadata = { title: "Notifications" };
export const dynamic = "force-dynamic";

const LIMIT = 100;

export default async function NotificationsPage() {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const items = await myNotifications(ctx, LIMIT);
  const unread = items.filter((n) => n.readAt === null).length;

  return (
    <>
      <PageHeader
        title="Notifications"
        subtitle={`Decisions on quota requests, grants about to end, and what reached the cluster. Newest first${items.length === LIMIT ? `; the latest ${LIMIT}` : ""}.`}
        actions={unread > 0 ? <ActionForm action={markNotificationsReadAction} fields={[]} submitLabel="Mark all read" pendingLabel="Marking…" /> : undefined}
      />
      <Card title={items.length === 0 ? undefined : unread > 0 ? `${unread} unread` : "All read"}>
        {items.length === 0 ? (
          <EmptyState title="No notifications yet">You are told here when a platform admin decides one of your requests, and when quota you hold is about to end.</EmptyState>
        ) : (
          <ul className="-mx-5 divide-y divide-slate-100" aria-label="Notifications">
            {items.map((n) => {
              const isUnread = n.readAt === null;
              return (
                <li key={n.id} className={`flex items-start gap-3 px-5 py-3 ${isUnread ? "bg-brand-50/50" : ""}`} data-unread={isUnread ? "true" : "false"}>
                  <span aria-hidden className={`mt-1.5 h-2 w-2 shrink-0 rounded-full ${isUnread ? "bg-brand-600" : "bg-transparent"}`} />
                  <div className="min-w-0 flex-1">
                    <p className={`text-sm ${isUnread ? "font-semibold text-slate-900" : "text-slate-800"}`}>
                      {isUnread && <span className="sr-only">Unread: </span>}
                      {n.link ? (
                        <Link href={n.link} className="hover:underline">
                          {n.title}
                        </Link>
                      ) : (
                        n.title
                      )}
                    </p>
                    {n.body && <p className="mt-0.5 whitespace-pre-wrap text-sm text-slate-600">{n.body}</p>}
                    <p className="mt-0.5 text-xs text-slate-500">
                      <Time at={n.createdAt} />
                    </p>
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </Card>
    </>
  );
}
