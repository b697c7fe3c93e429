/**
 * A small model of server-side apply, enough to test an applier honestly:
 *
 * - Each field manager's last applied configuration is remembered.
 * - Applying merges the configuration over the live object: maps merge key by
 *   key, lists and scalars are replaced whole (the "atomic" list type; the
 *   kinds the portal renders use atomic lists or ones it always sends whole).
 * - A field the manager applied last time and leaves out now is removed, unless
 *   another writer has changed it since or another apply manager applies the
 *   same value (shared ownership), as the real server does for owned fields.
 * - Without force, a field another apply manager owns with a different value is
 *   a conflict (409); with force the applying manager takes it over.
 *
 * Writers that are not apply managers (the stand-in's `put`, a POST) own nothing
 * here, so their changes never conflict and are simply overwritten by applies.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

export type FieldPath = string[];

export const formatPath = (path: FieldPath) => path.map((p) => `.${p}`).join("");

export function valueAt(value: Json | undefined, path: FieldPath): Json | undefined {
  let at = value;
  for (const key of path) {
    if (!isObject(at) || !Object.prototype.hasOwnProperty.call(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

/** Every field an applied configuration sets: maps are walked, lists and scalars are one field each. */
export function leafPaths(config: JsonObject, prefix: FieldPath = []): FieldPath[] {
  return Object.entries(config).flatMap(([key, value]) => (isObject(value) && Object.keys(value).length > 0 ? leafPaths(value, [...prefix, key]) : [[...prefix, key]]));
}

/** The managedFields `fieldsV1` form of a configuration: {"f:spec": {"f:hard": {"f:cpu": {}}}}. */
export function fieldsV1(config: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(config).map(([key, value]) => [`f:${key}`, isObject(value) ? fieldsV1(value) : {}]));
}

/** `owned` minus the given paths (a manager losing fields to a forced apply). */
export function withoutPaths(owned: JsonObject, paths: FieldPath[]): JsonObject {
  const copy = structuredClone(owned);
  for (const path of paths) {
    const parent = valueAt(copy, path.slice(0, -1));
    if (isObject(parent)) delete parent[path[path.length - 1]!];
  }
  return copy;
}

export interface Conflict {
  manager: string;
  path: FieldPath;
}

/** Fields the configuration would change that another apply manager still owns. */
export function findConflicts(live: JsonObject, applied: JsonObject, others: ReadonlyMap<string, JsonObject>): Conflict[] {
  const found: Conflict[] = [];
  for (const path of leafPaths(applied)) {
    const wanted = valueAt(applied, path);
    const current = valueAt(live, path);
    if (deepEqual(wanted, current)) continue;
    for (const [manager, config] of others) {
      const theirs = valueAt(config, path);
      if (theirs !== undefined && deepEqual(theirs, current)) found.push({ manager, path });
    }
  }
  return found;
}

/**
 * Removes from `live` what `owned` (a manager's previous configuration) set,
 * where the live value is still the one it applied and no other manager claims
 * it. Returns undefined when nothing is left of the field.
 */
function removeOwned(live: Json | undefined, owned: Json, path: FieldPath, claimedByOthers: (path: FieldPath, value: Json) => boolean): Json | undefined {
  if (live === undefined) return undefined;
  if (isObject(live) && isObject(owned) && Object.keys(owned).length > 0) {
    const rest: JsonObject = { ...live };
    for (const [key, value] of Object.entries(owned)) {
      const kept = removeOwned(rest[key], value, [...path, key], claimedByOthers);
      if (kept === undefined) delete rest[key];
      else rest[key] = kept;
    }
    return Object.keys(rest).length > 0 ? rest : undefined;
  }
  if (deepEqual(live, owned) && !claimedByOthers(path, live)) return undefined;
  return live;
}

/** The object after applying `applied` over `live`, given what this manager applied last time. */
export function mergeApplied(
  live: JsonObject,
  applied: JsonObject,
  previous: JsonObject | undefined,
  claimedByOthers: (path: FieldPath, value: Json) => boolean,
  path: FieldPath = [],
): JsonObject {
  const result: JsonObject = { ...live };
  for (const [key, value] of Object.entries(applied)) {
    const before = result[key];
    const prior = previous?.[key];
    result[key] = isObject(value) && isObject(before) ? mergeApplied(before, value, isObject(prior) ? prior : undefined, claimedByOthers, [...path, key]) : structuredClone(value);
  }
  for (const [key, prior] of Object.entries(previous ?? {})) {
    if (Object.prototype.hasOwnProperty.call(applied, key)) continue;
    const kept = removeOwned(result[key], prior, [...path, key], claimedByOthers);
    if (kept === undefined) delete result[key];
    else result[key] = kept;
  }
  return result;
}
