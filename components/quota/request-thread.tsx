import type { ReactNode } from "react";

import type { RequestComment } from "@/lib/quota/request-conversation";
import { Time } from "@/components/time";

/**
 * The conversation between a request's requester and those who decide it,
 * oldest first, the requester's side apart from the other; the form to
 * write comes from the page (it holds the server action). Presentation only.
 */
export function RequestThread({ comments, currentRevision, form }: { comments: readonly RequestComment[]; currentRevision: number; form: ReactNode }) {
  return (
    <div className="space-y-4">
      {comments.length === 0 ? (
        <p className="text-sm text-slate-600">No comments yet. Ask or answer a question here; the other side is notified.</p>
      ) : (
        <ol className="space-y-3" aria-label="Comments" data-testid="comments">
          {comments.map((c) => (
            <li key={c.id} className={`rounded-md border px-4 py-3 ${c.byRequester ? "border-slate-200 bg-white sm:mr-12" : "border-brand-100 bg-brand-50 sm:ml-12"}`}>
              <p className="text-xs text-slate-600">
                <span className="font-medium text-slate-900">{c.author}</span> {c.byRequester ? "(requester)" : "(deciding side)"} ·{" "}
                <Time at={c.createdAt} />
                {c.revision !== currentRevision && <> · on revision {c.revision}</>}
              </p>
              <p className="mt-1 whitespace-pre-wrap break-words text-sm text-slate-900">{c.body}</p>
            </li>
          ))}
        </ol>
      )}
      {form}
    </div>
  );
}
