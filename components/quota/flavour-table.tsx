import type { QuotaLine } from "@/lib/quota/lines";
import { formatBytes, formatCores } from "@/lib/quota/view-helpers";
import { MiniTable, Td } from "./quota-tables";

/**
 * A quota as its lines: per flavour and resource, what is guaranteed, how far
 * it may burst by borrowing, and how much of the guarantee others may borrow.
 * Live figures (in use, borrowed, lent) come beside it when a cluster is
 * connected; the caller says when none is. Presentation only.
 */
export interface LiveFlavourUse {
  /** Key "<flavour>\u0000<resource>". */
  [key: string]: { inUse: number; borrowed: number; lent: number } | undefined;
}

export const liveKey = (flavor: string, resource: string) => `${flavor}\u0000${resource}`;

/** An amount of a resource as people read it: cores, GiB, or devices. */
export function formatLineAmount(resource: string, n: number): string {
  if (resource === "cpu") return `${formatCores(n)} cores`;
  if (resource === "memory" || resource === "storage") return formatBytes(n);
  return n.toLocaleString("en-US");
}

export const resourceName = (resource: string) => ({ cpu: "CPU", memory: "Memory", storage: "Storage" })[resource] ?? resource;
export const flavourName = (flavor: string) => (flavor === "default" ? "Any node" : flavor);

/** Storage is a namespace quota only: never borrowed or lent, and never in a Kueue queue, so it has no live use either. */
const sharable = (resource: string) => resource !== "storage";

/** The plan's cells of a line as the page writes them: burst limit and what others may borrow. */
export function planCells(l: Pick<QuotaLine, "resource" | "burst" | "lendLimit">): { burst: string; othersMayBorrow: string } {
  if (!sharable(l.resource)) return { burst: "—", othersMayBorrow: "—" };
  return { burst: l.burst > 0 ? `+${formatLineAmount(l.resource, l.burst)}` : "none", othersMayBorrow: l.lendLimit === null ? "all unused" : formatLineAmount(l.resource, l.lendLimit) };
}

/** The live cells of a line: "—" where Kueue holds nothing of it (storage) or said nothing. */
export function liveCells(resource: string, use: { inUse: number; borrowed: number; lent: number } | undefined): { inUse: string; borrowed: string; lent: string } {
  if (!use || !sharable(resource)) return { inUse: "—", borrowed: "—", lent: "—" };
  return { inUse: formatLineAmount(resource, use.inUse), borrowed: formatLineAmount(resource, use.borrowed), lent: formatLineAmount(resource, use.lent) };
}

/** `lentEstimated`: the lent figures are an estimate (Kueue does not say who borrows from whom); the header says so. */
export function FlavourQuotaTable({ lines, caption, live, lentEstimated = false }: { lines: readonly QuotaLine[]; caption: string; live?: LiveFlavourUse | null; lentEstimated?: boolean }) {
  const shown = lines.filter((l) => l.guarantee !== 0 || l.burst !== 0);
  if (shown.length === 0) return <p className="text-sm text-slate-500">No quota yet.</p>;
  return (
    <MiniTable caption={caption} columns={["Flavour", "Resource", "Guaranteed", "Burst limit", "Others may borrow", ...(live ? ["In use", "Borrowed", lentEstimated ? "Lent (est.)" : "Lent"] : [])]}>
      {shown.map((l) => {
        const plan = planCells(l);
        const use = live ? liveCells(l.resource, live[liveKey(l.flavor, l.resource)]) : null;
        return (
          <tr key={liveKey(l.flavor, l.resource)}>
            <Td first className="whitespace-nowrap font-medium text-slate-900">
              {flavourName(l.flavor)}
            </Td>
            <Td className="whitespace-nowrap text-slate-700">{resourceName(l.resource)}</Td>
            <Td className="whitespace-nowrap">{formatLineAmount(l.resource, Math.max(0, l.guarantee))}</Td>
            <Td className="whitespace-nowrap">{plan.burst}</Td>
            <Td className="whitespace-nowrap">{plan.othersMayBorrow}</Td>
            {use && (
              <>
                <Td className="whitespace-nowrap">{use.inUse}</Td>
                <Td className="whitespace-nowrap">{use.borrowed}</Td>
                <Td className="whitespace-nowrap">{use.lent}</Td>
              </>
            )}
          </tr>
        );
      })}
    </MiniTable>
  );
}
