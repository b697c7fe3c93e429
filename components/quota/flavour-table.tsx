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

const resourceName = (resource: string) => ({ cpu: "CPU", memory: "Memory", storage: "Storage" })[resource] ?? resource;

/** `lentEstimated`: the lent figures are an estimate (Kueue does not say who borrows from whom); the header says so. */
export function FlavourQuotaTable({ lines, caption, live, lentEstimated = false }: { lines: readonly QuotaLine[]; caption: string; live?: LiveFlavourUse | null; lentEstimated?: boolean }) {
  const shown = lines.filter((l) => l.guarantee !== 0 || l.burst !== 0);
  if (shown.length === 0) return <p className="text-sm text-slate-500">No quota yet.</p>;
  return (
    <MiniTable caption={caption} columns={["Flavour", "Resource", "Guaranteed", "Burst limit", "Others may borrow", ...(live ? ["In use", "Borrowed", lentEstimated ? "Lent (est.)" : "Lent"] : [])]}>
      {shown.map((l) => {
        // Kueue does not hold storage: it has no live figures, and 0 would read as a fact.
        const use = l.resource === "storage" ? undefined : live?.[liveKey(l.flavor, l.resource)];
        return (
          <tr key={liveKey(l.flavor, l.resource)}>
            <Td first className="whitespace-nowrap font-medium text-slate-900">
              {l.flavor === "default" ? "Any node" : l.flavor}
            </Td>
            <Td className="whitespace-nowrap text-slate-700">{resourceName(l.resource)}</Td>
            <Td className="whitespace-nowrap">{formatLineAmount(l.resource, Math.max(0, l.guarantee))}</Td>
            <Td className="whitespace-nowrap">{l.resource === "storage" ? "—" : l.burst > 0 ? `+${formatLineAmount(l.resource, l.burst)}` : "none"}</Td>
            <Td className="whitespace-nowrap">{l.resource === "storage" ? "—" : l.lendLimit === null ? "all unused" : formatLineAmount(l.resource, l.lendLimit)}</Td>
            {live && (
              <>
                <Td>{use ? formatLineAmount(l.resource, use.inUse) : "—"}</Td>
                <Td>{use ? formatLineAmount(l.resource, use.borrowed) : "—"}</Td>
                <Td>{use ? formatLineAmount(l.resource, use.lent) : "—"}</Td>
              </>
            )}
          </tr>
        );
      })}
    </MiniTable>
  );
}
