import { Badge } from "./ui";

/** Badges and small pieces shared by the project's cluster section and the platform cluster page. No data access here. */

type Tone = "blue" | "slate" | "amber" | "red" | "green";

const OBJECT_TONES: Record<string, Tone> = {
  planned: "blue",
  applying: "amber",
  applied: "green",
  failed: "red",
  drifted: "amber",
};

const CHANGE_TONES: Record<string, Tone> = {
  pending: "slate",
  applying: "amber",
  applied: "green",
  recorded: "blue",
  failed: "red",
  superseded: "slate",
};

/** planned, applying, applied, failed or drifted: colour and the word itself. */
export function ObjectStatusBadge({ status }: { status: string }) {
  return <Badge tone={OBJECT_TONES[status] ?? "slate"}>{status}</Badge>;
}

/** pending, applying, applied, recorded, failed or superseded. */
export function ChangeStatusBadge({ status }: { status: string }) {
  return <Badge tone={CHANGE_TONES[status] ?? "slate"}>{status}</Badge>;
}

export type Drift = { path: string; desired: unknown; live: unknown }[] | "missing" | null;

function show(value: unknown): string {
  if (value === undefined || value === null) return "(not set)";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** What differs between the portal's object and the cluster's: each field, or that the object is gone. */
export function DriftList({ drift }: { drift: Drift }) {
  if (drift === "missing") return <p className="text-xs font-medium text-amber-900">missing from the cluster</p>;
  if (!drift || drift.length === 0) return <p className="text-xs text-slate-500">no differences recorded</p>;
  return (
    <ul className="space-y-1 text-xs">
      {drift.map((d) => (
        <li key={d.path}>
          <code className="font-mono font-medium text-slate-900">{d.path}</code>: desired <code className="rounded bg-emerald-50 px-1 font-mono text-emerald-800">{show(d.desired)}</code>, live{" "}
          <code className="rounded bg-amber-50 px-1 font-mono text-amber-900">{show(d.live)}</code>
        </li>
      ))}
    </ul>
  );
}

/** A long message cut to a readable length (the full text is shown elsewhere on the page). */
export function truncate(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
