import type { RequestRevision } from "@/lib/quota/request-conversation";
import type { ContentChange } from "@/lib/quota/revision-changes";
import { Time } from "@/components/time";

/** What an edit changed, field by field: before struck through, after beside it. Presentation only. */
function Side({ text, at }: { text: string; at: Date | null | undefined }) {
  if (at === undefined) return text;
  return at ? (
    <>
      until <Time at={at} />
    </>
  ) : (
    "permanent"
  );
}

export function ChangeList({ changes, label }: { changes: readonly ContentChange[]; label: string }) {
  return (
    <dl className="space-y-2 text-sm" aria-label={label} data-testid="revision-changes">
      {changes.map((c) => (
        <div key={c.field} className="grid gap-1 sm:grid-cols-[9rem_minmax(0,1fr)]">
          <dt className="font-medium text-slate-700">{c.label}</dt>
          <dd className="min-w-0 break-words">
            <span className="sr-only">was </span>
            <del className="bg-red-50 text-red-800 decoration-red-400"><Side text={c.before} at={c.instants?.before} />
            </del>
            <span aria-hidden> → </span>
            <span className="sr-only">, now </span>
            <ins className="bg-emerald-50 font-medium text-emerald-900 no-underline"><Side text={c.after} at={c.instants?.after} />
            </ins>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The revisions of a request, newest first, each with what it changed from
 * the one before; the first is the request as asked.
 */
export function RevisionHistory({ revisions }: { revisions: readonly RequestRevision[] }) {
  const newestFirst = [...revisions].reverse();
  return (
    <ol className="space-y-5">
      {newestFirst.map((v, i) => (
        <li key={v.revision}>
          <p className="text-sm font-medium text-slate-900">
            Revision {v.revision}
            {i === 0 ? " (now)" : ""}
            <span className="font-normal text-slate-600">
              {" "}
              · {v.revision === 1 ? "asked" : "edited"} <Time at={v.writtenAt} />
            </span>
          </p>
          {v.changes.length > 0 ? (
            <div className="mt-2">
              <ChangeList changes={v.changes} label={`What revision ${v.revision} changed`} />
            </div>
          ) : (
            <p className="mt-1 text-sm text-slate-600">The request as first asked.</p>
          )}
        </li>
      ))}
    </ol>
  );
}
