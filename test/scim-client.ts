import * as groupItem from "@/app/scim/v2/Groups/[id]/route";
import * as groupCollection from "@/app/scim/v2/Groups/route";
import * as userItem from "@/app/scim/v2/Users/[id]/route";
import * as userCollection from "@/app/scim/v2/Users/route";
import { freshAddress } from "./api";

/**
 * Calls /scim/v2 Users and Groups in-process through the route handlers Next
 * serves, as an identity provider would (bearer token, SCIM JSON).
 */
type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
export type ScimReply = { status: number; body: Record<string, unknown> };

const ROUTES: [RegExp, Record<string, unknown>][] = [
  [/^\/Users$/, userCollection],
  [/^\/Users\/([^/]+)$/, userItem],
  [/^\/Groups$/, groupCollection],
  [/^\/Groups\/([^/]+)$/, groupItem],
];

export const SCIM_GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const SCIM_USER = "urn:ietf:params:scim:schemas:core:2.0:User";
export const scimPatch = (Operations: unknown[]) => ({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations });

export async function callScim(token: string, method: string, path: string, body?: unknown): Promise<ScimReply> {
  const url = new URL(`http://allot.test/scim/v2${path}`);
  const route = ROUTES.find(([pattern]) => pattern.test(url.pathname.replace("/scim/v2", "")));
  if (!route) throw new Error(`no route for ${path}`);
  const id = route[0].exec(url.pathname.replace("/scim/v2", ""))?.[1];
  const handler = route[1][method] as Handler | undefined;
  if (!handler) throw new Error(`${method} not exported for ${path}`);
  const request = new Request(url, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { "Content-Type": "application/scim+json", "X-Forwarded-For": freshAddress(), Authorization: `Bearer ${token}` },
  });
  const response = await handler(request, { params: Promise.resolve<Record<string, string>>(id ? { id: decodeURIComponent(id) } : {}) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
