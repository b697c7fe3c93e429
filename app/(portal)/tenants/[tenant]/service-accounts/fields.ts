import type { FieldSpec } from "@/components/action-form";

/** Form fields the service account pages share. */

export const EXPIRY_FIELDS: FieldSpec[] = [
  { kind: "number", name: "expiresInDays", label: "Expires in (days)", defaultValue: "90", min: "1", max: "365" },
  { kind: "checkbox", name: "noExpiry", label: "No expiry: I confirm this token never expires", hint: "Leave the days empty when you tick this." },
];

export const ROLE_OPTIONS = [
  { value: "member", label: "member" },
  { value: "viewer", label: "viewer" },
  { value: "meter", label: "meter (pushes usage only)" },
];

export const ROLE_MEANINGS = "Member works in the project through the API (asks for quota, reads spend); viewer reads it; meter only pushes usage.";

export function accountFields(tenant: string, account: string): FieldSpec[] {
  return [
    { kind: "hidden", name: "tenant", value: tenant },
    { kind: "hidden", name: "serviceAccount", value: account },
  ];
}
