import type { ClusterChangeRow, ClusterObjectRow } from "@/lib/cluster/queries";
import type { ScheduledChangeItem } from "@/lib/cluster/scheduled-queries";
import { failureAdvice } from "@/lib/cluster/failure-advice";
import { waitingWording } from "@/lib/cluster/status-wording";
import { storedManifestsToYaml } from "@/lib/cluster/yaml";
import { buttonClass } from "./button-class";
import { ChangeStatusBadge, DriftList, ObjectStatusBadge, plural, truncate } from "./cluster-status";
import { Cell, DataTable } from "./table";
import { Card, EmptyState, formatDateTime } from "./ui";
import { Time } from "@/components/time";
import { viewerTimeZone } from "@/lib/server/time-zone";

export type ClusterObjectView = Pick<ClusterObjectRow, "id" | "kind" | "name" | "status" | "manifest" | "drift" | "error" | "updatedAt">;
export type ClusterChangeView = Pick<ClusterChangeRow, "id" | "status" | "attempts" | "lastError" | "lastErrorReason" | "createdAt" | "finishedAt" | "nextAttemptAt">;

/**
 * What a project becomes on the cluster: its objects in apply order, each with
 * its YAML, and the newest change. In record-only mode these are plans.
 */
export function ClusterObjects({
  mode,
  server,
  namespace,
  objects,
  latestChange,
  scheduled,
  now,
  yamlHref,
}: {
  mode: "live" | "record-only";
  server: string | null;
  namespace: string;
  objects: ClusterObjectView[];
  latestChange: ClusterChangeView | null;
  /** This project's changes still ahead (lib/cluster/scheduled-queries.ts). */
  scheduled: Pick<ScheduledChangeItem, "id" | "dueAt" | "reason">[];
  now: Date;
  yamlHref: string;
}) {
  return (
    <Card
      title="Cluster objects"
      description={
        mode === "live" ? (
          <>
            Applied to <code className="font-mono text-xs">{server ?? "the connected cluster"}</code>
          </>
        ) : (
          "Plans of what this project becomes on the cluster."
        )
      }
      actions={
        <a href={yamlHref} className={buttonClass()} download>
          Download YAML
        </a>
      }
    >
      {mode === "record-only" && (
        <p role="note" className="mb-4 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          No cluster connected: these are plans, not live objects. Download the YAML to apply them with kubectl or a GitOps tool.
        </p>
      )}
      <LatestChange change={latestChange} now={now} />
      <ScheduledList scheduled={scheduled} />
      {objects.length === 0 ? (
        <EmptyState title="Nothing rendered yet">The worker renders this project within a few seconds of a change.</EmptyState>
      ) : (
        <DataTable caption={`Cluster objects of ${namespace}`} columns={["Kind", "Name", "Status", "Last change"]}>
          {objects.map((o) => (
            <ObjectRows key={o.id} object={o} />
          ))}
        </DataTable>
      )}
    </Card>
  );
}

/**
 * One object: its line, and under it a disclosure the width of the table with
 * its YAML (and its error or drift). Two rows, so the YAML is not squeezed into
 * a column; the line above has no divider, so they read as one.
 */
function ObjectRows({ object: o }: { object: ClusterObjectView }) {
  const failed = o.status === "failed" && o.error;
  const drifted = o.status === "drifted";
  return (
    <>
      <tr className="border-b-0">
        <Cell className="whitespace-nowrap pb-1 font-medium">{o.kind}</Cell>
        <Cell className="whitespace-nowrap pb-1 font-mono text-xs">{o.name}</Cell>
        <Cell className="pb-1">
          <ObjectStatusBadge status={o.status} />
        </Cell>
        <Cell className="whitespace-nowrap pb-1 text-slate-600"><Time at={o.updatedAt} /></Cell>
      </tr>
      <tr>
        <td colSpan={4} className="px-5 pb-2.5">
          <details>
            <summary className="cursor-pointer text-xs font-medium text-brand-700">
              {failed ? "Error and YAML" : drifted ? "Drift and YAML" : "YAML"}
              <span className="sr-only">
                {" "}
                of {o.kind} {o.name}
              </span>
            </summary>
            {/* No wider than the table its other rows make: a long line scrolls inside the YAML box instead of widening the page. */}
            <div className="mt-2 w-0 min-w-full space-y-2">
              {failed && (
                <p className="whitespace-pre-wrap rounded-md bg-red-50 px-3 py-2 text-xs text-red-800">
                  <span className="font-medium">Error: </span>
                  {o.error}
                </p>
              )}
              {drifted && (
                <div className="rounded-md bg-amber-50 px-3 py-2">
                  <p className="mb-1 text-xs font-medium text-amber-900">Differs on the cluster</p>
                  <DriftList drift={o.drift} />
                </div>
              )}
              <pre tabIndex={0} className="max-h-96 overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs leading-relaxed text-slate-100">
                {storedManifestsToYaml([o.manifest]).replace(/^---\n/, "")}
              </pre>
            </div>
          </details>
        </td>
      </tr>
    </>
  );
}

/** What the cluster will do for this project later by itself, each with its instant; nothing when nothing is scheduled. */
function ScheduledList({ scheduled }: { scheduled: Pick<ScheduledChangeItem, "id" | "dueAt" | "reason">[] }) {
  if (scheduled.length === 0) return null;
  return (
    <div className="mb-4 text-sm text-slate-700" data-testid="scheduled-cluster-changes">
      <p>{plural(scheduled.length, "change")} scheduled:</p>
      <ul className="list-disc pl-5">
        {scheduled.map((s) => (
          <li key={s.id}>
            {s.reason}, scheduled for <Time at={s.dueAt} />
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The newest change of a project, with its state and last error; also shown on the project's home. */
export async function LatestChange({ change, now }: { change: ClusterChangeView | null; now: Date }) {
  if (!change) return <p className="mb-4 text-sm text-slate-600">No cluster change for this project yet.</p>;
  const zone = await viewerTimeZone();
  const waiting = waitingWording(change, now, (d) => formatDateTime(d, zone));
  const advice = failureAdvice(change);
  return (
    <p className="mb-4 text-sm text-slate-700" data-testid="latest-cluster-change">
      Latest change <span className="font-mono text-xs">#{change.id}</span> <ChangeStatusBadge status={change.status} /> · {plural(change.attempts, "attempt")} ·{" "}
      {change.finishedAt ? <>finished <Time at={change.finishedAt} /></> : <>asked <Time at={change.createdAt} /></>}
      {waiting && <span className="text-slate-500"> · {waiting}</span>}
      {change.lastError && (
        <>
          {" "}
          · <span className="text-red-700">last error: {truncate(change.lastError, 200)}</span>
        </>
      )}
      {change.status === "failed" && (
        <span className="mt-1 block" data-testid="latest-change-advice">
          {advice?.what ? `${advice.what} ` : ""}Platform admins see what to do on the Cluster page and retry it there once its cause is fixed.
        </span>
      )}
    </p>
  );
}
