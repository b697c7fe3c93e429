import type { ApprovalArithmetic } from "@/lib/quota/sharing-arithmetic";
import { isComputeLine } from "@/lib/quota/sharing-arithmetic";
import { approvalSentence, lineFigure, lineName } from "@/lib/quota/sharing-words";
import { MiniTable, Td } from "./quota-tables";

/**
 * Per line a request touches (GPU lines; CPU and memory when it asks to borrow them): whether the pools hold every tenant's
 * guarantees after approval at their autoscaler minimum, now and at their
 * maximum, and what bursts could reach, as one sentence and the numbers
 * behind it. Red when approving as asked is refused. Presentation only.
 */
export function SharingCheck({ lines }: { lines: readonly ApprovalArithmetic[] }) {
  return (
    <div className="space-y-4">
      {lines.map((a) => {
        const { before: b, after: n } = a;
        const f = (x: number) => lineFigure(n, x);
        const compute = isComputeLine(n);
        const unit = compute ? (n.resource === "cpu" ? "CPU cores" : "Memory (GiB)") : `${n.flavor} GPUs`;
        const rows: [string, number, number][] = [
          [compute ? "Granted, all tenants" : "Guaranteed, all tenants", b.guaranteed, n.guaranteed],
          ["Left to guarantee at the minimum", b.headroomAtMin, n.headroomAtMin],
          ["Burst limits, all tenants", b.burst, n.burst],
          ["Peak: guarantees and every burst", b.peak, n.peak],
        ];
        return (
          <div key={a.after.key} className="space-y-2">
            <p role="note" className={`rounded-md px-3 py-2 text-xs font-medium ${a.breaksMinimum ? "bg-red-50 text-red-800" : n.guaranteed > n.capacity.atMin ? "bg-amber-50 text-amber-900" : "bg-slate-50 text-slate-700"}`}>
              {approvalSentence(a)}
            </p>
            <MiniTable caption={`${compute ? lineName(n) : `${n.flavor} GPUs`} across all tenants, before and after approval`} columns={[unit, "Now", "After approval"]}>
              {rows.map(([label, x, y]) => (
                <tr key={label}>
                  <Td first className="text-slate-700">
                    {label}
                  </Td>
                  <Td>{f(x)}</Td>
                  <Td className={x !== y ? `font-semibold ${label.startsWith("Left") && y < 0 ? "text-red-700" : "text-brand-700"}` : ""}>{f(y)}</Td>
                </tr>
              ))}
              <tr>
                <Td first className="text-slate-700">
                  Pools hold: minimum / now / maximum
                </Td>
                <Td className="whitespace-nowrap">
                  {f(n.capacity.atMin)} / {f(n.capacity.now)} / {f(n.capacity.atMax)}
                </Td>
                <Td className="whitespace-nowrap">
                  {f(n.capacity.atMin)} / {f(n.capacity.now)} / {f(n.capacity.atMax)}
                </Td>
              </tr>
            </MiniTable>
          </div>
        );
      })}
    </div>
  );
}
