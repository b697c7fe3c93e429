import { z } from "zod";
import { badRequest } from "./errors";
import { matchesFilter, normalizePath, parseFilter, type Filter } from "./filter";
import { FILL_IN, oneOf } from "@/lib/input/messages";

/**
 * PATCH (RFC 7644 3.5.2) applied to a resource's JSON representation; the
 * caller then validates the result as if it had been PUT. Written for what
 * IdPs actually send: Entra ID capitalises op names ("Replace") and sends
 * booleans as strings ("False"), both remove members by
 * `members[value eq "id"]` or by a value list, and Okta replaces with no path
 * and an object (`{"op":"replace","value":{"active":false}}`).
 */
export const PATCH_OP_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

export const patchRequest = z.object({
  schemas: z.array(z.string()).refine((s) => s.includes(PATCH_OP_SCHEMA), `Include ${PATCH_OP_SCHEMA}.`),
  Operations: z
    .array(
      z.object({
        op: z
          .string({ message: FILL_IN })
          .transform((s) => s.toLowerCase())
          .pipe(z.enum(["add", "replace", "remove"], { message: oneOf(["add", "replace", "remove"]) })),
        path: z.string().optional(),
        value: z.unknown().optional(),
      }),
    )
    .min(1, "Send at least one operation."),
});
export type PatchOperation = z.output<typeof patchRequest>["Operations"][number];

type Json = Record<string, unknown>;
type ParsedPath = { attribute: string; filter: Filter | null; sub: string | null };

/** `name.givenName`, `members[value eq "x"]`, `emails[type eq "work"].value`, with or without the core schema URN. */
export function parsePatchPath(raw: string): ParsedPath {
  const path = normalizePath(raw.trim());
  const match = /^([A-Za-z$][\w$-]*)(?:\[(.*)\])?(?:\.([A-Za-z$][\w$-]*))?$/.exec(path);
  if (!match) throw badRequest("invalidPath", `The path ${JSON.stringify(raw)} is not an attribute path.`);
  const [, attribute, filterText, sub] = match;
  return { attribute: attribute!, filter: filterText === undefined ? null : parseFilter(filterText), sub: sub ?? null };
}

const keyOf = (obj: Json, name: string) => Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Identity of an element of a multi-valued attribute, to add without duplicates and remove by value. */
const elementKey = (v: unknown) => (isObject(v) ? JSON.stringify(v[keyOf(v, "value")] ?? v) : JSON.stringify(v));

function setAttribute(target: Json, name: string, value: unknown, op: "add" | "replace") {
  const key = keyOf(target, name);
  const current = target[key];
  if (op === "add" && Array.isArray(current)) {
    const incoming: unknown[] = Array.isArray(value) ? value : [value];
    const seen = new Set(current.map(elementKey));
    target[key] = [...(current as unknown[]), ...incoming.filter((v) => !seen.has(elementKey(v)))];
  } else if (isObject(current) && isObject(value)) {
    // A complex attribute: replace or add the sub-attributes given, keep the others (RFC 7644 3.5.2.3).
    const merged = { ...current };
    for (const [k, v] of Object.entries(value)) merged[keyOf(merged, k)] = v;
    target[key] = merged;
  } else {
    target[key] = value;
  }
}

function applyOne(resource: Json, operation: PatchOperation) {
  const { op, path, value } = operation;
  if (path === undefined || path.trim() === "") {
    if (op === "remove") throw badRequest("noTarget", "A remove operation needs a path.");
    if (!isObject(value)) throw badRequest("invalidValue", `A ${op} without a path needs an object of attributes as its value.`);
    for (const [name, v] of Object.entries(value)) {
      // Entra and Okta send dotted or URN-prefixed keys in a no-path value ("name.givenName").
      applyOne(resource, { op, path: name, value: v });
    }
    return;
  }
  const { attribute, filter, sub } = parsePatchPath(path);
  const key = keyOf(resource, attribute);

  if (filter === null) {
    if (sub !== null) {
      const existing = resource[key];
      const parent: Json = isObject(existing) ? { ...existing } : {};
      if (op === "remove") delete parent[keyOf(parent, sub)];
      else setAttribute(parent, sub, value, op);
      resource[key] = parent;
      return;
    }
    if (op === "remove") {
      const current = resource[key];
      if (Array.isArray(current) && value !== undefined) {
        // Entra removes members as {"op":"Remove","path":"members","value":[{"value":"id"}]}.
        const gone = new Set((Array.isArray(value) ? value : [value]).map(elementKey));
        resource[key] = current.filter((v) => !gone.has(elementKey(v)));
      } else {
        delete resource[key];
      }
      return;
    }
    setAttribute(resource, attribute, value, op);
    return;
  }

  const elements = Array.isArray(resource[key]) ? (resource[key] as unknown[]) : [];
  const matches = (v: unknown) => matchesFilter(v, filter);
  if (op === "remove") {
    if (sub === null) resource[key] = elements.filter((v) => !matches(v));
    else resource[key] = elements.map((v) => (matches(v) && isObject(v) ? Object.fromEntries(Object.entries(v).filter(([k]) => k.toLowerCase() !== sub.toLowerCase())) : v));
    return;
  }
  if (!elements.some(matches)) {
    if (op === "replace" && sub === null) throw badRequest("noTarget", `No value of ${attribute} matches ${JSON.stringify(path)}.`);
    // `emails[type eq "work"].value` on a user with no work email: add one carrying the filter's equality.
    const seed: Json = filter.kind === "compare" && filter.op === "eq" ? { [filter.path]: filter.value } : {};
    resource[key] = [...elements, sub === null ? value : { ...seed, [sub]: value }];
    return;
  }
  resource[key] = elements.map((v) => {
    if (!matches(v)) return v;
    if (sub === null) return value;
    const element = isObject(v) ? { ...v } : {};
    setAttribute(element, sub, value, "replace");
    return element;
  });
}

/** The representation after the operations, in order; the input is not changed. */
export function applyPatch(resource: Json, operations: PatchOperation[]): Json {
  const result = structuredClone(resource);
  for (const operation of operations) applyOne(result, operation);
  return result;
}
