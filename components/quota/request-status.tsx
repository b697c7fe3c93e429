import { Badge } from "../ui";

/** Quota request statuses as words and colours. No data access here. */

type Tone = "blue" | "slate" | "amber" | "red" | "green";

const STATUS: Record<string, { label: string; tone: Tone }> = {
  pending: { label: "pending", tone: "amber" },
  approved: { label: "approved", tone: "blue" },
  auto_approved: { label: "auto-approved", tone: "blue" },
  rejected: { label: "rejected", tone: "red" },
  cancelled: { label: "cancelled", tone: "slate" },
  expired: { label: "expired", tone: "slate" },
  applied: { label: "applied", tone: "green" },
  apply_failed: { label: "apply failed", tone: "red" },
};

export const requestStatusLabel = (status: string) => STATUS[status]?.label ?? status.replace(/_/g, " ");

/** The request's status, and "awaiting second approval" when a first admin approved a request that needs two. */
export function RequestStatusBadge({ status, awaitingSecondApproval = false }: { status: string; awaitingSecondApproval?: boolean }) {
  const s = STATUS[status] ?? { label: status, tone: "slate" as const };
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <Badge tone={s.tone}>{s.label}</Badge>
      {awaitingSecondApproval && <Badge tone="amber">awaiting second approval</Badge>}
    </span>
  );
}
