import type { AccessEntry } from "./queries";

/** How an entry's route to access reads in the table and the CSV: "via group <name>" for a group. */
export function accessThrough(entry: Pick<AccessEntry, "via" | "group">): string {
  return entry.via === "group" ? `via group ${entry.group}` : entry.via;
}

/** Columns of the "who has access" CSV, shared by the portal download and the API. */
export const ACCESS_CSV_COLUMNS = [
  { header: "Name", value: (a: AccessEntry) => a.displayName },
  { header: "Email", value: (a: AccessEntry) => a.email },
  { header: "Kind", value: (a: AccessEntry) => (a.kind === "service_account" ? "service account" : a.collaborator ? "external collaborator" : "user") },
  { header: "Role", value: (a: AccessEntry) => a.role },
  { header: "Through", value: (a: AccessEntry) => accessThrough(a) },
  { header: "Expires", value: (a: AccessEntry) => a.expiresAt },
  { header: "Granted by", value: (a: AccessEntry) => a.grantedBy },
] as const;

