/** Dates as people read them in the portal: UTC, unambiguous. */
export function formatDate(date: Date): string {
  return date.toLocaleDateString("en-GB", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
}

export function formatDateTime(date: Date): string {
  return `${date.toLocaleString("en-GB", { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "UTC" })} UTC`;
}

/** yyyy-mm-dd for <input type="date">. */
export function dateInputValue(date: Date): string {
  return date.toISOString().slice(0, 10);
}
