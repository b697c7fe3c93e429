import type { ReactNode } from "react";
import { Time } from "@/components/time";
import type { QuotaAmounts } from "@/lib/quota/amounts";
import { describeAmounts } from "@/lib/quota/view-helpers";
import { GlancePanel } from "./glance-panel";

/** The project's time-bound grants still ahead of their end, each with what may be done about it (Extend) beside it. Presentation only. */
export function EndingGrantsPanel({ grants, href, actionOf }: { grants: readonly { id: string; amounts: QuotaAmounts; endsAt: Date }[]; href: string; actionOf: (grantId: string) => ReactNode }) {
  return (
    <GlancePanel title="Time-bound quota" href={href} linkLabel="All grants" testId="glance-ending-grants">
      <ul className="space-y-2" aria-label="Time-bound grants">
        {grants.map((g) => (
          <li key={g.id} className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
            <span className="text-slate-800">
              {describeAmounts(g.amounts)} <span className="text-slate-600">until <Time at={g.endsAt} day /></span>
            </span>
            {actionOf(g.id)}
          </li>
        ))}
      </ul>
    </GlancePanel>
  );
}
