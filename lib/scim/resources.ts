import { z } from "zod";
import { badRequest } from "./errors";
import { etagOf } from "./etag";
import { getAttribute } from "./filter";
import { FILL_IN, atMostChars, atMostItems } from "@/lib/input/messages";

/**
 * The SCIM representations of our people and groups (RFC 7643 4.1, 4.2), and
 * what a client may write. Writes are read case-insensitively by attribute
 * name, attributes we do not keep are ignored, and `active` takes Entra's
 * string booleans.
 */
export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";

export type ScimUserRow = {
  id: string;
  email: string;
  displayName: string;
  active: boolean;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  version: number;
  created: Date;
  lastModified: Date;
  groups: { id: string; displayName: string }[];
};

export type ScimGroupRow = {
  id: string;
  displayName: string;
  externalId: string | null;
  version: number;
  created: Date;
  lastModified: Date;
  members: { id: string; display: string }[];
};

function meta(resourceType: "User" | "Group", location: string, row: { created: Date; lastModified: Date; version: number }) {
  return { resourceType, created: row.created.toISOString(), lastModified: row.lastModified.toISOString(), location, version: etagOf(row.version) };
}

export function userResource(row: ScimUserRow, baseUrl: string) {
  const name = row.givenName !== null || row.familyName !== null ? { givenName: row.givenName ?? undefined, familyName: row.familyName ?? undefined, formatted: [row.givenName, row.familyName].filter(Boolean).join(" ") } : undefined;
  return {
    schemas: [USER_SCHEMA],
    id: row.id,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    userName: row.email,
    ...(name ? { name } : {}),
    displayName: row.displayName,
    emails: [{ value: row.email, type: "work", primary: true }],
    active: row.active,
    groups: row.groups.map((g) => ({ value: g.id, display: g.displayName, $ref: `${baseUrl}/Groups/${g.id}`, type: "direct" })),
    meta: meta("User", `${baseUrl}/Users/${row.id}`, row),
  };
}

export function groupResource(row: ScimGroupRow, baseUrl: string) {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    displayName: row.displayName,
    members: row.members.map((m) => ({ value: m.id, display: m.display, $ref: `${baseUrl}/Users/${m.id}`, type: "User" })),
    meta: meta("Group", `${baseUrl}/Groups/${row.id}`, row),
  };
}

const optionalText = z.string().trim().max(400, atMostChars(400)).nullish();

/** "True", "false", true: Entra ID sends booleans as strings in PATCH. */
const scimBoolean = z.union([z.boolean(), z.string().regex(/^(true|false)$/i, "Enter true or false.").transform((s) => s.toLowerCase() === "true")], {
  message: "Enter true or false.",
});

const userInput = z.object({
  userName: z.string({ message: FILL_IN }).trim().toLowerCase().pipe(z.email("Enter an email address: a person is matched by their email.")),
  externalId: optionalText,
  displayName: optionalText,
  givenName: optionalText,
  familyName: optionalText,
  formatted: optionalText,
  active: scimBoolean.optional(),
});

export type UserInput = { email: string; externalId: string | null; displayName: string; givenName: string | null; familyName: string | null; active: boolean };

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "body"} ${i.message}`).join("; ");
}

/** A User as POSTed or PUT, or as it stands after a PATCH. */
export function parseUserInput(body: unknown): UserInput {
  const name = getAttribute(body, "name");
  const parsed = userInput.safeParse({
    userName: getAttribute(body, "userName"),
    externalId: getAttribute(body, "externalId"),
    displayName: getAttribute(body, "displayName"),
    givenName: getAttribute(name, "givenName"),
    familyName: getAttribute(name, "familyName"),
    formatted: getAttribute(name, "formatted"),
    active: getAttribute(body, "active"),
  });
  if (!parsed.success) throw badRequest("invalidValue", describe(parsed.error));
  const v = parsed.data;
  const fromParts = [v.givenName, v.familyName].filter(Boolean).join(" ");
  return {
    email: v.userName,
    externalId: v.externalId || null,
    displayName: v.displayName || v.formatted || fromParts || v.userName,
    givenName: v.givenName || null,
    familyName: v.familyName || null,
    active: v.active ?? true,
  };
}

const groupInput = z.object({
  displayName: z.string({ message: FILL_IN }).trim().min(1, FILL_IN).max(200, atMostChars(200)),
  externalId: optionalText,
  members: z.array(z.string({ message: "Enter a user id." }).trim().min(1, "Enter a user id.")).max(10_000, atMostItems(10_000, "members")),
});

export type GroupInput = { displayName: string; externalId: string | null; memberIds: string[] };

export function parseGroupInput(body: unknown): GroupInput {
  const members = getAttribute(body, "members");
  const parsed = groupInput.safeParse({
    displayName: getAttribute(body, "displayName"),
    externalId: getAttribute(body, "externalId"),
    members: Array.isArray(members) ? members.map((m) => getAttribute(m, "value")) : members === undefined || members === null ? [] : members,
  });
  if (!parsed.success) throw badRequest("invalidValue", describe(parsed.error));
  return { displayName: parsed.data.displayName, externalId: parsed.data.externalId || null, memberIds: [...new Set(parsed.data.members)] };
}
