/**
 * What the cluster pages say about waiting changes and drift, as plain
 * functions so the wording is tested without a page: a change that waits for
 * an instant is "scheduled for" it, never "taken within seconds", and drift
 * is never reported as found or absent where it is never checked.
 */

export type ClusterMode = "live" | "record-only";

/** Why a change has not finished yet, or null when it has. */
export function waitingWording(change: { status: string; nextAttemptAt: Date }, now: Date, formatDateTime: (d: Date) => string): string | null {
  if (change.status === "applying") return "being applied now";
  if (change.status !== "pending") return null;
  if (change.nextAttemptAt.getTime() > now.getTime()) return `scheduled for ${formatDateTime(change.nextAttemptAt)}`;
  return "the worker takes it within seconds";
}

/** The empty state of the Drift card: what was checked, if anything. */
export function noDriftWording(mode: ClusterMode): { title: string; body: string } {
  return mode === "live"
    ? { title: "No drift found", body: "Every object the portal owns matched the cluster when it was last checked." }
    : { title: "Drift not checked", body: "Record-only mode: no cluster is connected, so drift is never checked. Compare the downloaded YAML with the cluster yourself." };
}

/** How much of a list is shown, stated with the same count as the list's filter. */
export function shownWording(shown: number, total: number, noun: string, before?: number): string {
  if (before !== undefined) return `${shown === 1 ? `1 ${noun}` : `${shown} ${noun}s`} older than #${before}, of ${total}`;
  if (shown >= total) return total === 1 ? `1 ${noun}` : `${total} ${noun}s`;
  return `the newest ${shown} of ${total} ${noun}s`;
}
