"use client";

import type { ReactNode } from "react";
import { Card } from "@/components/ui";
import { minorDigits, sumMoney } from "@/lib/money";
import type { SpendData } from "@/lib/server/spend-json";
import { money } from "./format";

/** Whether the window's figures carry idle charged back: the rule is chargeback now, or was on some of its days. */
export const chargesIdle = (data: SpendData): boolean => data.idleCost.mode === "chargeback" || data.idleCost.chargedBack !== 0;

/**
 * The idle cost rule in a sentence, and where idle is charged back, what this
 * scope was charged beside what it used (spend in window stays use only, so
 * budgets and forecasts read the same on every page).
 */
export function IdleCostCard({ data, form }: { data: SpendData; form?: ReactNode }) {
  const c = data.currency;
  const idle = data.idleCost;
  const charging = chargesIdle(data);
  const rows: [string, number, string][] =
    data.scope.kind === "platform"
      ? [
          ["Idle charged back to tenants", idle.chargedBack, "added to the tenants below, by their guarantees"],
          ["Idle left apart", idle.apart ?? 0, "days under the apart rule, days with no guarantees, use beyond capacity"],
        ]
      : [
          ["Spend in window (use)", data.totalCost, "what the projects used, priced hour by hour"],
          ["Idle charged back", idle.chargedBack, "this scope's share of the cluster's idle capacity"],
          ["Use + idle charged back", sumMoney([data.totalCost, idle.chargedBack], minorDigits(c)), "the bill under the idle cost rule"],
        ];
  return (
    <Card title="Idle capacity cost" description={charging ? "Idle capacity is charged back to the tenants under the rule below." : "Idle capacity is shown apart, never spread over the tenants."}>
      <p className="text-sm text-slate-700" data-testid="idle-rule">
        {idle.rule}
      </p>
      {charging && (
        <dl className="mt-3 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[16rem_8rem_1fr]" data-testid="idle-charged">
          {rows.map(([label, value, note]) => (
            <div key={label} className="contents">
              <dt className="font-medium text-slate-900">{label}</dt>
              <dd className="tabular-nums text-slate-900 sm:text-right">{money(value, c)}</dd>
              <dd className="text-slate-500">{note}</dd>
            </div>
          ))}
        </dl>
      )}
      {form && <div className="mt-4 border-t border-slate-200 pt-4">{form}</div>}
    </Card>
  );
}
