import { permits, type ClusterPermission } from "@/lib/cluster/permissions";
import type { JsonObject } from "./apply";
import type { ResourceType } from "./resources";

/** The identity a refusal names, as the API server names the portal's in-cluster service account. */
const USER = "system:serviceaccount:allot:allot";

export interface AuthorizationRequest {
  method: string;
  resource: ResourceType;
  namespace?: string;
  /** Absent on collection requests. */
  name?: string;
  query: URLSearchParams;
  /** Whether the named object exists: a server-side apply that creates is also checked as `create`. */
  exists: boolean;
  /** The request body, for the escalation check on bindings. */
  body?: () => JsonObject;
}

/** The RBAC verb of a request, as the API server's request info resolver derives it. */
function verbOf(r: AuthorizationRequest): string {
  const method = r.method.toUpperCase();
  const watch = r.query.get("watch") === "true" || r.query.get("watch") === "1";
  if (method === "GET") return r.name === undefined ? (watch ? "watch" : "list") : "get";
  if (method === "POST") return "create";
  if (method === "PATCH") return "patch";
  if (method === "PUT") return "update";
  if (method === "DELETE") return r.name === undefined ? "deletecollection" : "delete";
  return method.toLowerCase();
}

function refusal(verb: string, r: { resource: ResourceType; namespace?: string; name?: string }): string {
  const { group, plural } = r.resource;
  const subject = `${plural}${group ? `.${group}` : ""}${r.name !== undefined ? ` "${r.name}"` : ""}`;
  const scope = r.namespace !== undefined ? `in the namespace "${r.namespace}"` : "at the cluster scope";
  return `${subject} is forbidden: User "${USER}" cannot ${verb} resource "${plural}" in API group "${group}" ${scope}`;
}

/**
 * RBAC as the API server applies it to one request, for a client holding
 * `rules` cluster-wide. Returns the refusal message, or null when allowed.
 * - server-side apply is `patch`, and also `create` when the object is new;
 * - a (Cluster)RoleBinding may reference a role only with `bind` on that role:
 *   the real server also accepts a creator holding every permission of the
 *   role, which the portal (holding only its own rules) never does for
 *   admin, edit or view.
 */
export function authorize(rules: readonly ClusterPermission[], r: AuthorizationRequest): string | null {
  const verb = verbOf(r);
  const allowed = (v: string, name = r.name) => permits(rules, { apiGroup: r.resource.group, resource: r.resource.plural, verb: v, name });
  if (!allowed(verb)) return refusal(verb, r);
  if (verb === "patch" && !r.exists && !allowed("create")) return refusal("create", r);

  const binding = r.resource.group === "rbac.authorization.k8s.io" && (r.resource.kind === "RoleBinding" || r.resource.kind === "ClusterRoleBinding");
  if (binding && (verb === "create" || verb === "patch" || verb === "update") && r.body) {
    const roleRef = r.body().roleRef as { kind?: unknown; name?: unknown } | undefined;
    const kind = roleRef?.kind === "Role" ? "roles" : "clusterroles";
    const name = typeof roleRef?.name === "string" ? roleRef.name : "";
    if (!permits(rules, { apiGroup: "rbac.authorization.k8s.io", resource: kind, verb: "bind", name })) {
      return `${r.resource.plural}.rbac.authorization.k8s.io "${r.name ?? ""}" is forbidden: user "${USER}" is attempting to grant RBAC permissions not currently held, and may not bind ${kind === "roles" ? "Role" : "ClusterRole"} "${name}"`;
    }
  }
  return null;
}
