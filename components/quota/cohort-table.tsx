import type { CohortFigures } from "@/lib/quota/cohort";
import { formatLineAmount } from "./flavour-table";
import { MiniTable, Td } from "./quota-tables";

/**
 * A tenant's cohort on one line, before and after a request: what its
 * projects are guaranteed and may burst together, what they lend, and each
 * project's fair share of borrowed capacity. Presentation only.
 */
const pct = (n: number) => `${Math.round(n * 1000) / 10}%`;

export function CohortTable({ tenant, line, before, after }: { tenant: string; line: { flavor: string; resource: string }; before: CohortFigures; after: CohortFigures }) {
  const name = line.flavor === "default" ? line.resource.toUpperCase() : `${line.flavor} (${line.resource})`;
  const fmt = (n: number) => formatLineAmount(line.resource, n);
  const slugs = [...new Set([...before.members.map((m) => m.slug), ...after.members.map((m) => m.slug)])];
  const rows: [string, string, string][] = [
    ["Guaranteed in the cohort", fmt(before.guarantee), fmt(after.guarantee)],
    ["Burst limits in the cohort", fmt(before.burst), fmt(after.burst)],
    ["Lendable to others", fmt(before.lendable), fmt(after.lendable)],
    ...slugs.map((slug): [string, string, string] => {
      const b = before.members.find((m) => m.slug === slug);
      const a = after.members.find((m) => m.slug === slug);
      const label = `${(a ?? b)!.name}: guarantee, fair share (weight ${(a ?? b)!.weight})`;
      return [label, b ? `${fmt(b.guarantee)}, ${pct(b.fairShare)}` : "—", a ? `${fmt(a.guarantee)}, ${pct(a.fairShare)}` : "—"];
    }),
  ];
  return (
    <MiniTable caption={`Cohort of ${tenant} on ${name}, before and after approval`} columns={[name, "Now", "After approval"]}>
      {rows.map(([label, b, a]) => (
        <tr key={label}>
          <Td first className="text-slate-700">
            {label}
          </Td>
          <Td>{b}</Td>
          <Td className={a !== b ? "font-semibold text-brand-700" : ""}>{a}</Td>
        </tr>
      ))}
    </MiniTable>
  );
}
