import type { TenantEnvelopeView } from "@/lib/quota/envelope-queries";
import { quotaKeyLabel } from "../quota/envelope-card";
import { formatLineAmount } from "../quota/flavour-table";
import { GlancePanel, UseBar } from "./glance-panel";

/** The tenant's quota envelope against what its projects hold, per line. Presentation only. */
export function EnvelopePanel({ view, href }: { view: TenantEnvelopeView; href: string }) {
  return (
    <GlancePanel title="Envelope allocated" href={href} linkLabel="Quota requests" testId="glance-envelope">
      {view.rows.length === 0 ? (
        <p className="text-slate-600">No envelope set: a platform admin sets what the tenant may divide among its projects.</p>
      ) : (
        <ul className="space-y-2" aria-label="Envelope by line">
          {view.rows.map((r) => (
            <li key={r.key}>
              <div className="flex items-baseline justify-between gap-2">
                <span className="text-slate-700">{quotaKeyLabel(r.key)}</span>
                <span className={`tabular-nums ${r.unallocated < 0 ? "font-medium text-red-700" : "text-slate-900"}`}>
                  {formatLineAmount(r.line.resource, r.allocated)} of {formatLineAmount(r.line.resource, r.line.guarantee)} allocated
                </span>
              </div>
              {r.line.guarantee > 0 && <UseBar share={r.allocated / r.line.guarantee} over={r.unallocated < 0} />}
            </li>
          ))}
        </ul>
      )}
    </GlancePanel>
  );
}
