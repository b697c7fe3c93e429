import path from "node:path";
import { describe, expect, it } from "vitest";
import { budgetOf, FIRST_LOAD_BUDGET_BYTES, firstLoadJs, frameworkJs, ROUTE_CEILINGS, routeOfManifestKey } from "./first-load-js";

// Runs after `next build` (npm test's "Build output" step): it reads the build in .next.
const routes = firstLoadJs(path.resolve(import.meta.dirname, "../../.next"));
const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

describe("first-load JavaScript per route (gzip)", () => {
  it("reads every page route of the build, each with the framework's files and its own", () => {
    const names = routes.map((r) => r.route);
    for (const route of ["/", "/sign-in", "/admin/requests", "/tenants/[tenant]/projects/[project]", "/tenants/[tenant]/projects/[project]/spend"]) expect(names).toContain(route);
    const framework = frameworkJs(path.resolve(import.meta.dirname, "../../.next"));
    expect(framework).toBeGreaterThan(50_000);
    for (const r of routes) expect(r.gzipBytes, r.route).toBeGreaterThan(framework);
  });

  it.each(routes.map((r) => [r.route, r] as const))("%s stays within its budget", (_route, r) => {
    const budget = budgetOf(r.route);
    expect(r.gzipBytes, `${r.route}: ${kB(r.gzipBytes)} of JavaScript on first load, over its ${kB(budget.bytes)} budget (files: ${r.files.join(", ")})`).toBeLessThanOrEqual(budget.bytes);
  });

  it("keeps no ceiling a route no longer needs, and none for a route that does not exist", () => {
    for (const [route, ceiling] of Object.entries(ROUTE_CEILINGS)) {
      const r = routes.find((x) => x.route === route);
      expect(r, `ROUTE_CEILINGS names ${route}, which the build does not have`).toBeDefined();
      expect(r!.gzipBytes, `${route} is back under ${kB(FIRST_LOAD_BUDGET_BYTES)}: remove its ceiling (${ceiling.why})`).toBeGreaterThan(FIRST_LOAD_BUDGET_BYTES);
    }
  });
});

describe("routeOfManifestKey", () => {
  it("drops route groups and the trailing page segment", () => {
    expect(routeOfManifestKey("/(portal)/tenants/[tenant]/projects/[project]/spend/page")).toBe("/tenants/[tenant]/projects/[project]/spend");
    expect(routeOfManifestKey("/(portal)/page")).toBe("/");
    expect(routeOfManifestKey("/(auth)/sign-in/page")).toBe("/sign-in");
  });
});
