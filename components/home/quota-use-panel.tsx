import type { QuotaUseLine } from "@/lib/cluster/resource-quota-use";
import type { QuotaUseNow } from "@/lib/quota/quota-use-now";
import { formatBytes, formatCores } from "@/lib/quota/view-helpers";
import { formatDateTime } from "../ui";
import { GlancePanel, UseBar } from "./glance-panel";
import { viewerTimeZone } from "@/lib/server/time-zone";

/** The ResourceQuota key as a person reads it: "requests.nvidia.com/gpu" -> "GPUs (nvidia.com/gpu)". */
export function quotaResourceLabel(key: string): string {
  if (key === "requests.cpu") return "CPU";
  if (key === "requests.memory") return "Memory";
  if (key === "requests.storage") return "Storage";
  if (key === "persistentvolumeclaims") return "Volume claims";
  return `GPUs (${key.replace(/^requests\./, "")})`;
}

function amount(key: string, value: number): string {
  if (key === "requests.cpu") return `${formatCores(value)} cores`;
  if (key === "requests.memory" || key === "requests.storage") return formatBytes(value);
  return String(Math.round(value * 1000) / 1000);
}

/** Why the figures are a plan, or where the live ones come from. */
function note(now: QuotaUseNow, zone: string): string {
  switch (now.mode) {
    case "live":
      return `Used against the namespace's ResourceQuota, as the cluster reported it at ${formatDateTime(now.readAt, zone)}.`;
    case "record-only":
      return "No cluster connected: this is the quota the portal has planned, with no use to show.";
    case "not-applied":
      return "The quota is not on the cluster yet: this is the plan, waiting for the worker to apply it.";
    case "unavailable":
      return `The cluster could not be read (${now.message}): this is the plan.`;
  }
}

/** The project's hard cap per resource, with use against it in live mode. Presentation only. */
export async function QuotaUsePanel({ now, href }: { now: QuotaUseNow; href: string }) {
  const zone = await viewerTimeZone();
  return (
    <GlancePanel title="Quota" href={href} linkLabel="Quota and requests" testId="glance-quota">
      {now.lines.length === 0 ? (
        <p className="text-slate-600">No quota has been rendered for this project yet.</p>
      ) : (
        <ul className="space-y-2" aria-label="Quota by resource">
          {now.lines.map((l) => (
            <QuotaLineItem key={l.resource} line={l} />
          ))}
        </ul>
      )}
      <p className="mt-2 text-xs text-slate-600">{note(now, zone)}</p>
    </GlancePanel>
  );
}

function QuotaLineItem({ line }: { line: QuotaUseLine }) {
  const share = line.used !== null && line.hard > 0 ? line.used / line.hard : null;
  return (
    <li>
      <div className="flex items-baseline justify-between gap-2">
        <span className="text-slate-700">{quotaResourceLabel(line.resource)}</span>
        <span className="tabular-nums text-slate-900">
          {line.used === null ? amount(line.resource, line.hard) : `${amount(line.resource, line.used)} of ${amount(line.resource, line.hard)}`}
        </span>
      </div>
      {share !== null && <UseBar share={share} over={share >= 1} />}
    </li>
  );
}
