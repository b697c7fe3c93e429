import "server-only";
import { etagOf, notModified } from "./etag";
import { ScimError } from "./errors";
import { matchesFilter } from "./filter";
import { createGroup, deleteGroup, groupById, groupsForFilter, patchGroup, replaceGroup } from "./groups";
import { scimBody, scimJson, scimRoute, type ScimRequest } from "./http";
import { listResponse, parseListQuery } from "./list";
import { patchRequest } from "./patch";
import { groupResource, parseGroupInput, parseUserInput, userResource } from "./resources";
import { resourceTypes, schemas, serviceProviderConfig } from "./discovery";
import { createUser, deleteUser, patchUser, replaceUser, userById, usersForFilter } from "./users";

/**
 * The handlers behind app/scim/v2/**: parse, call users.ts or groups.ts,
 * answer with the representation and its ETag.
 */
const CORE = new Set(["id", "schemas", "meta"]);

/** excludedAttributes (RFC 7644 3.9): Entra asks Groups without their members; id, schemas and meta always stay. */
function withoutExcluded<T extends Record<string, unknown>>(resource: T, request: Request): T {
  const excluded = new URL(request.url).searchParams.get("excludedAttributes");
  if (!excluded) return resource;
  const names = new Set(excluded.split(",").map((n) => n.trim().toLowerCase().replace(/^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/, "")));
  return Object.fromEntries(Object.entries(resource).filter(([k]) => CORE.has(k) || !names.has(k.toLowerCase()))) as T;
}

function resourceAnswer(resource: { meta: { version: string } }, status = 200, extra: Record<string, string> = {}) {
  return scimJson(resource, status, { ETag: resource.meta.version, ...extra });
}

async function parsePatch(r: ScimRequest) {
  const parsed = patchRequest.safeParse(await scimBody(r.request));
  if (!parsed.success) throw new ScimError(400, parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "), "invalidSyntax");
  return parsed.data.Operations;
}

const ifMatch = (r: ScimRequest) => r.request.headers.get("if-match");

export const users = {
  list: scimRoute(async (r) => {
    const query = parseListQuery(new URL(r.request.url).searchParams);
    const rows = await usersForFilter(r.db, query.filter);
    const resources = rows.map((row) => userResource(row, r.baseUrl)).filter((u) => !query.filter || matchesFilter(u, query.filter));
    return scimJson(listResponse(resources.map((u) => withoutExcluded(u, r.request)), query));
  }),
  create: scimRoute(async (r) => {
    const id = await createUser(r.db, parseUserInput(await scimBody(r.request)), r.actor, r.now);
    const resource = userResource(await userById(r.db, id), r.baseUrl);
    return resourceAnswer(resource, 201, { Location: resource.meta.location });
  }),
  get: scimRoute(async (r) => {
    const row = await userById(r.db, r.params.id!);
    if (notModified(r.request.headers.get("if-none-match"), row.version)) return new Response(null, { status: 304, headers: { ETag: etagOf(row.version) } });
    return resourceAnswer(withoutExcluded(userResource(row, r.baseUrl), r.request));
  }),
  replace: scimRoute(async (r) => {
    await replaceUser(r.db, r.params.id!, parseUserInput(await scimBody(r.request)), ifMatch(r), r.actor, r.now);
    return resourceAnswer(userResource(await userById(r.db, r.params.id!), r.baseUrl));
  }),
  patch: scimRoute(async (r) => {
    await patchUser(r.db, r.params.id!, await parsePatch(r), ifMatch(r), r.actor, r.now, r.baseUrl);
    return resourceAnswer(userResource(await userById(r.db, r.params.id!), r.baseUrl));
  }),
  remove: scimRoute(async (r) => {
    await deleteUser(r.db, r.params.id!, ifMatch(r), r.actor, r.now);
    return new Response(null, { status: 204 });
  }),
};

export const groups = {
  list: scimRoute(async (r) => {
    const query = parseListQuery(new URL(r.request.url).searchParams);
    const rows = await groupsForFilter(r.db, query.filter);
    const resources = rows.map((row) => groupResource(row, r.baseUrl)).filter((g) => !query.filter || matchesFilter(g, query.filter));
    return scimJson(listResponse(resources.map((g) => withoutExcluded(g, r.request)), query));
  }),
  create: scimRoute(async (r) => {
    const id = await createGroup(r.db, parseGroupInput(await scimBody(r.request)), r.actor, r.now);
    const resource = groupResource(await groupById(r.db, id), r.baseUrl);
    return resourceAnswer(resource, 201, { Location: resource.meta.location });
  }),
  get: scimRoute(async (r) => {
    const row = await groupById(r.db, r.params.id!);
    if (notModified(r.request.headers.get("if-none-match"), row.version)) return new Response(null, { status: 304, headers: { ETag: etagOf(row.version) } });
    return resourceAnswer(withoutExcluded(groupResource(row, r.baseUrl), r.request));
  }),
  replace: scimRoute(async (r) => {
    await replaceGroup(r.db, r.params.id!, parseGroupInput(await scimBody(r.request)), ifMatch(r), r.actor, r.now);
    return resourceAnswer(groupResource(await groupById(r.db, r.params.id!), r.baseUrl));
  }),
  patch: scimRoute(async (r) => {
    await patchGroup(r.db, r.params.id!, await parsePatch(r), ifMatch(r), r.actor, r.now, r.baseUrl);
    return resourceAnswer(groupResource(await groupById(r.db, r.params.id!), r.baseUrl));
  }),
  remove: scimRoute(async (r) => {
    await deleteGroup(r.db, r.params.id!, ifMatch(r), r.actor, r.now);
    return new Response(null, { status: 204 });
  }),
};

const scimJsonAsync = (body: unknown) => Promise.resolve(scimJson(body));

function byId<T extends { id: string }>(all: T[], id: string, what: string): T {
  const found = all.find((x) => x.id === id);
  if (!found) throw new ScimError(404, `No ${what} ${id}.`);
  return found;
}

export const discovery = {
  serviceProviderConfig: scimRoute((r) => scimJsonAsync(serviceProviderConfig(r.baseUrl))),
  resourceTypes: scimRoute((r) => scimJsonAsync(listResponse(resourceTypes(r.baseUrl), { startIndex: 1, count: 10 }))),
  resourceType: scimRoute((r) => scimJsonAsync(byId(resourceTypes(r.baseUrl), r.params.id!, "resource type"))),
  schemas: scimRoute((r) => scimJsonAsync(listResponse(schemas(r.baseUrl), { startIndex: 1, count: 10 }))),
  schema: scimRoute((r) => scimJsonAsync(byId(schemas(r.baseUrl), r.params.id!, "schema"))),
};
