import type { Actor } from "@/lib/auth/actor";
import { can, type Action } from "@/lib/auth/policy";

/**
 * The places the sidebar offers a person: each one is there because the policy
 * lets this actor open it, asked with the same action its page asks, so a link
 * is never shown that would end in "not found". Pure: the tenants and projects
 * come from the caller (reachableTenants), the decisions from the policy.
 */

export interface NavLink {
  href: string;
  label: string;
}
export interface NavTenant extends NavLink {
  /** False when the person reaches only projects of the tenant (a collaborator): the tenant is a heading, not a link. */
  linked: boolean;
  projects: NavLink[];
}
export interface NavPlaces {
  personal: NavLink[];
  tenants: NavTenant[];
  platform: NavLink[];
  more: NavLink[];
}

export interface ReachableTenant {
  id: string;
  slug: string;
  name: string;
  projects: readonly { id: string; slug: string; name: string }[];
}

/** The admin area's pages, each with the action its page checks. */
const PLATFORM_PLACES: readonly (NavLink & { action: Action })[] = [
  { href: "/admin", label: "Admin", action: "platform.view" },
  { href: "/admin/requests", label: "Approval queue", action: "quota.decide" },
  { href: "/admin/capacity", label: "Capacity", action: "capacity.manage" },
  { href: "/admin/cluster", label: "Cluster", action: "cluster.view" },
  { href: "/admin/spend", label: "Platform spend", action: "platform.spend.view" },
  { href: "/admin/reviews", label: "Access reviews", action: "access_review.platform" },
  { href: "/admin/audit", label: "Audit log", action: "audit.view_all" },
  { href: "/admin/webhooks", label: "Webhooks", action: "webhooks.manage" },
];

export function placesFor(actor: Actor, now: Date, tenants: readonly ReachableTenant[]): NavPlaces {
  const platform = { kind: "platform" } as const;
  const allowed = (action: Action) => can(actor, action, platform, now);
  return {
    personal: [{ href: "/", label: "My tenants" }, ...(allowed("notification.own") ? [{ href: "/notifications", label: "Notifications" }] : [])],
    tenants: tenants.flatMap((t) => {
      const projects = t.projects
        .filter((p) => can(actor, "project.view", { kind: "project", tenantId: t.id, projectId: p.id }, now))
        .map((p) => ({ href: `/tenants/${t.slug}/projects/${p.slug}`, label: p.name }));
      const linked = can(actor, "tenant.view", { kind: "tenant", tenantId: t.id }, now);
      if (!linked && projects.length === 0) return [];
      return [{ href: `/tenants/${t.slug}`, label: t.name, linked, projects }];
    }),
    platform: PLATFORM_PLACES.filter((p) => allowed(p.action)).map(({ href, label }) => ({ href, label })),
    more: [...(allowed("tenant_request.create") ? [{ href: "/tenant-requests", label: "Ask for a tenant" }] : []), { href: "/api-docs", label: "API reference" }],
  };
}
