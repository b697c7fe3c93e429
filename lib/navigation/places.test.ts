import { describe, expect, it } from "vitest";
import type { Actor } from "@/lib/auth/actor";
import { placesFor, type ReachableTenant } from "./places";

const NOW = new Date("2026-12-02T12:00:00Z");
const LATER = new Date("2026-12-20T00:00:00Z");
const EARLIER = new Date("2026-11-01T00:00:00Z");

const person = (partial: Partial<Actor>): Actor => ({ principalId: "p", kind: "user", displayName: "x", email: null, isPlatformAdmin: false, memberships: [], projectGrants: [], ...partial });
const vision: ReachableTenant = {
  id: "t-a",
  slug: "vision-lab",
  name: "Vision Lab",
  projects: [
    { id: "a1", slug: "detector-training", name: "Detector training" },
    { id: "a2", slug: "segmentation", name: "Segmentation" },
  ],
};
const grant = (projectId: string, expiresAt: Date | null) => ({ projectId, tenantId: "t-a", role: "member" as const, expiresAt, tenantStatus: "active" as const });

describe("the sidebar's places, as the policy decides them", () => {
  it("gives a platform admin the admin area's pages", () => {
    const places = placesFor(person({ isPlatformAdmin: true }), NOW, []);
    expect(places.platform.map((p) => p.label)).toEqual(["Admin", "Approval queue", "Capacity", "Cluster", "Platform spend", "Access reviews", "Audit log", "Webhooks"]);
  });

  it("gives a tenant member no admin pages, the tenant as a link and only the project granted", () => {
    const member = person({ memberships: [{ tenantId: "t-a", tenantStatus: "active", role: "member" }], projectGrants: [grant("a1", null)] });
    const places = placesFor(member, NOW, [vision]);
    expect(places.platform).toEqual([]);
    expect(places.tenants).toEqual([{ href: "/tenants/vision-lab", label: "Vision Lab", linked: true, projects: [{ href: "/tenants/vision-lab/projects/detector-training", label: "Detector training" }] }]);
    expect(places.personal.map((p) => p.label)).toEqual(["My tenants", "Notifications"]);
    expect(places.more.map((p) => p.href)).toEqual(["/tenant-requests", "/api-docs"]);
  });

  it("gives a collaborator the project under an unlinked tenant heading, and nothing once the grant has ended", () => {
    expect(placesFor(person({ projectGrants: [grant("a1", LATER)] }), NOW, [vision]).tenants).toEqual([
      { href: "/tenants/vision-lab", label: "Vision Lab", linked: false, projects: [{ href: "/tenants/vision-lab/projects/detector-training", label: "Detector training" }] },
    ]);
    expect(placesFor(person({ projectGrants: [grant("a1", EARLIER)] }), NOW, [vision]).tenants).toEqual([]);
  });

  it("leaves out a disabled tenant", () => {
    const admin = person({ memberships: [{ tenantId: "t-a", tenantStatus: "disabled", role: "tenant_admin" }] });
    expect(placesFor(admin, NOW, [vision]).tenants).toEqual([]);
  });

  it("offers a service account's token none of the people's places beyond the tenants", () => {
    const token = person({ kind: "service_account", memberships: [{ tenantId: "t-a", tenantStatus: "active", role: "viewer" }] });
    const places = placesFor(token, NOW, [vision]);
    expect(places.tenants[0]!.projects.map((p) => p.label)).toEqual(["Detector training", "Segmentation"]);
    expect(places.platform).toEqual([]);
  });
});
