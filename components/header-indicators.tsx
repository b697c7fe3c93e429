import Link from "next/link";

/** The header's bell (unread notices) and, for platform admins, the approval queue's count. No data access here. */
export function HeaderIndicators({ unread, pending }: { unread: number; pending: number | null }) {
  return (
    <div className="flex items-center gap-1">
      {pending !== null && (
        <Link
          href="/admin/requests"
          className="flex items-center gap-1.5 rounded-md px-2 py-1.5 text-sm text-slate-600 hover:bg-slate-100 hover:text-slate-900"
          aria-label={`Approval queue: ${pending} waiting`}
          data-testid="queue-indicator"
        >
          {/* Visible on phones too, and apart from the count, so the accessible name contains what is shown ("Queue 3"). */}
          <span>Queue</span>{" "}
          <span className={`min-w-5 rounded-full px-1.5 text-center text-xs font-semibold tabular-nums ${pending > 0 ? "bg-amber-100 text-amber-900" : "bg-slate-100 text-slate-600"}`}>{pending}</span>
        </Link>
      )}
      <Link
        href="/notifications"
        className="relative flex items-center rounded-md p-2 text-slate-600 hover:bg-slate-100 hover:text-slate-900"
        aria-label={unread > 0 ? `Notifications: ${unread} unread` : "Notifications"}
        data-testid="notification-bell"
      >
        <svg aria-hidden viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.6" className="h-5 w-5">
          <path d="M10 2.75a4.75 4.75 0 0 0-4.75 4.75v2.6l-1.4 2.55a.75.75 0 0 0 .66 1.1h10.98a.75.75 0 0 0 .66-1.1l-1.4-2.55V7.5A4.75 4.75 0 0 0 10 2.75Z" strokeLinejoin="round" />
          <path d="M8 15.5a2 2 0 0 0 4 0" strokeLinecap="round" />
        </svg>
        {unread > 0 && (
          <span aria-hidden className="absolute right-0.5 top-0.5 min-w-4 rounded-full bg-red-600 px-1 text-center text-[10px] font-semibold leading-4 text-white tabular-nums">
            {unread > 99 ? "99+" : unread}
          </span>
        )}
      </Link>
    </div>
  );
}
