import { Fragment } from "react";
import type { OfferedGpuResource } from "@/lib/quota/import-pools";
import { formatNodeTaint, type NodeTaint } from "@/lib/quota/pool-hardware";
import type { GpuProfile } from "@/lib/quota/pool-profiles";

/** Text that may break after "/", "=" and ":" (and anywhere, when a part is still too long). */
function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[/=:])/);
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {part}
          {i < parts.length - 1 && <wbr />}
        </Fragment>
      ))}
    </>
  );
}

/**
 * A pool's hardware facts as small wrapping lines: its node labels, taints and
 * the workload tiers allowed on it. Long labels break after "/", "=" and ":"
 * (anywhere as a last resort), so the list stays inside a 390 px wide screen.
 */
export function HardwareFacts({ labels, taints, tiers }: { labels: Record<string, string>; taints: readonly NodeTaint[]; tiers: readonly string[] | null }) {
  const keys = Object.keys(labels).sort();
  return (
    <dl className="mt-1 space-y-1 text-xs text-slate-600">
      <div>
        <dt className="inline font-medium text-slate-700">Tiers: </dt>
        <dd className="inline">{tiers === null ? "every tier" : tiers.join(", ")}</dd>
      </div>
      {keys.length > 0 && (
        <div>
          <dt className="font-medium text-slate-700">Node labels</dt>
          <dd>
            <ul className="font-mono">
              {keys.map((k) => (
                <li key={k} className="[overflow-wrap:anywhere]">
                  <Breakable text={`${k}=${labels[k]}`} />
                </li>
              ))}
            </ul>
          </dd>
        </div>
      )}
      <div>
        <dt className={taints.length > 0 ? "font-medium text-slate-700" : "inline font-medium text-slate-700"}>Taints{taints.length > 0 ? "" : ": "}</dt>
        <dd className={taints.length > 0 ? "" : "inline"}>
          {taints.length === 0 ? (
            "none"
          ) : (
            <ul className="font-mono">
              {taints.map((t) => (
                <li key={formatNodeTaint(t)} className="[overflow-wrap:anywhere]">
                  <Breakable text={formatNodeTaint(t)} />
                </li>
              ))}
            </ul>
          )}
        </dd>
      </div>
    </dl>
  );
}

/**
 * What a pool's nodes advertise beyond the GPU resources quota is requested in
 * (a MIG mixed-strategy node offers several profiles): named so the admin sees
 * the whole node, and said not to be requestable (every namespace's quota caps
 * them at 0). Nothing when the nodes offer only requestable resources.
 */
export function OfferedGpuResources({ offered, requestable }: { offered: readonly OfferedGpuResource[]; requestable: readonly (string | null)[] }) {
  const others = offered.filter((o) => !requestable.includes(o.resource));
  if (others.length === 0) return null;
  const named = requestable.filter((r): r is string => r !== null);
  return (
    <dl className="mt-1 text-xs text-slate-600">
      <dt className="font-medium text-slate-700">Nodes also offer</dt>
      <dd>
        <ul className="font-mono">
          {others.map((o) => (
            <li key={o.resource} className="[overflow-wrap:anywhere]">
              <Breakable text={`${o.resource} ×${o.perNode}`} />
            </li>
          ))}
        </ul>
        <p>
          not requestable: every namespace’s quota caps {others.length > 1 ? "them" : "it"} at 0{named.length > 0 ? `; quota is requested in ${named.join(", ")}` : ""}
        </p>
      </dd>
    </dl>
  );
}

/** A mixed MIG pool's further requestable profiles: each a model of its own, with its resource and instances per node. */
export function GpuProfilesList({ profiles }: { profiles: readonly GpuProfile[] }) {
  if (profiles.length === 0) return null;
  return (
    <dl className="mt-1 text-xs text-slate-600">
      <dt className="font-medium text-slate-700">Also requestable</dt>
      <dd>
        <ul>
          {profiles.map((x) => (
            <li key={x.resource} className="[overflow-wrap:anywhere]">
              {x.perNode} × {x.model} <span className="font-mono text-slate-500">{x.resource}</span>
            </li>
          ))}
        </ul>
      </dd>
    </dl>
  );
}
