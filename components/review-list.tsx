import Link from "next/link";
import type { ReactNode } from "react";
import { Cell, DataTable } from "./table";
import { Badge, EmptyState } from "./ui";
import type { FieldSpec } from "./action-form";
import type { ReviewSummary } from "@/lib/reviews/queries";
import { Time } from "@/components/time";

/** A review as the lists show it: a type-only import, erased from the bundle, so no server code comes along. */
export type ReviewListEntry = Omit<ReviewSummary, "tenantId">;

export const RULE_WORDS = { revoke: "revoke what is not reviewed", keep_and_flag: "keep and flag what is not reviewed" } as const;

/** Fields of the "Open a review" dialog, tenant or platform (the tenant's slug is added by the page). */
export function openReviewFields(defaultDeadline: string, maxDeadline: string): FieldSpec[] {
  return [
    { kind: "text", name: "title", label: "Title", hint: "Optional; by default “Access review of <scope>, <date>”." },
    { kind: "date", name: "deadline", label: "Deadline", defaultValue: defaultDeadline, max: maxDeadline, hint: "At the start of this day (UTC) the rule decides whatever is left." },
    {
      kind: "select",
      name: "rule",
      label: "At the deadline, items nobody reviewed are",
      defaultValue: "keep_and_flag",
      options: [
        { value: "keep_and_flag", label: "kept and flagged" },
        { value: "revoke", label: "revoked" },
      ],
    },
  ];
}

export function reviewState(r: Pick<ReviewListEntry, "deadlineAppliedAt" | "deadline">, now: Date): ReactNode {
  if (r.deadlineAppliedAt) return <Badge tone="slate">closed <Time at={r.deadlineAppliedAt} day /></Badge>;
  if (r.deadline <= now) return <Badge tone="amber">deadline passed, rule pending</Badge>;
  return <Badge tone="blue">open until <Time at={r.deadline} /></Badge>;
}

export function ReviewList({ reviews, now, showTenant, empty }: { reviews: ReviewListEntry[]; now: Date; showTenant: boolean; empty: ReactNode }) {
  if (reviews.length === 0) return <EmptyState title="No access reviews yet">{empty}</EmptyState>;
  return (
    <DataTable caption="Access reviews" columns={["Review", ...(showTenant ? ["Tenant"] : []), "State", "Decided", "Revoked", "Flagged", "Rule"]}>
      {reviews.map((r) => (
        <tr key={r.id}>
          <Cell>
            <Link href={`/reviews/${r.id}`} className="font-medium text-brand-700 hover:underline">
              {r.title}
            </Link>
            <p className="text-xs text-slate-500">
              opened <Time at={r.openedAt} day /> by {r.openedByLabel}
            </p>
          </Cell>
          {showTenant && <Cell>{r.tenantName ?? "Platform"}</Cell>}
          <Cell>{reviewState(r, now)}</Cell>
          <Cell className="tabular-nums">
            {r.decided} of {r.total}
          </Cell>
          <Cell className="tabular-nums">{r.revoked}</Cell>
          <Cell className="tabular-nums">{r.flagged}</Cell>
          <Cell className="text-sm text-slate-600">{RULE_WORDS[r.rule]}</Cell>
        </tr>
      ))}
    </DataTable>
  );
}
