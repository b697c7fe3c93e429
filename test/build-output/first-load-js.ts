import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import zlib from "node:zlib";

/**
 * First-load JavaScript per route of a production build (`next build`, Turbopack), read from the
 * build output rather than a browser: what a browser fetches before a page is interactive is the
 * root main files (build-manifest.json) and, per route, every chunk its client reference manifest
 * lists for the route's layouts, error and not-found boundaries and page (entryJSFiles). Sizes are
 * gzip at level 9 of each file, as a compressing server sends it, counting each file once. The
 * polyfill file is left out: browsers that run the portal load it with nomodule, i.e. never.
 *
 * The Turbopack build no longer prints these sizes (Next 16 removed "First Load JS" from the
 * build report), so the budget test and `npm run bench:first-load-js` read them here.
 */

export interface RouteJs {
  /** The URL pattern, route groups removed: "/tenants/[tenant]/projects/[project]/spend". */
  route: string;
  files: string[];
  gzipBytes: number;
}

/** 150 kB (1,000 bytes a kB, as Next and the issue count them) of gzip JavaScript per route. */
export const FIRST_LOAD_BUDGET_BYTES = 150_000;

const gzipSizes = new Map<string, number>();
function gzipSize(file: string): number {
  let size = gzipSizes.get(file);
  if (size === undefined) {
    size = zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
    gzipSizes.set(file, size);
  }
  return size;
}

function manifestsUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...manifestsUnder(full));
    else if (entry.name === "page_client-reference-manifest.js") found.push(full);
  }
  return found;
}

type ClientReferenceManifest = { entryJSFiles?: Record<string, string[]> };

/** A manifest file assigns globalThis.__RSC_MANIFEST[key]; it is run in a context of its own, never imported. */
function readClientManifest(file: string): { key: string; manifest: ClientReferenceManifest } {
  const sandbox = { globalThis: {} as { __RSC_MANIFEST?: Record<string, ClientReferenceManifest> } };
  vm.runInNewContext(fs.readFileSync(file, "utf8"), sandbox);
  const entries = Object.entries(sandbox.globalThis.__RSC_MANIFEST ?? {});
  if (entries.length !== 1) throw new Error(`${file}: expected one client reference manifest, found ${entries.length}`);
  const [key, manifest] = entries[0]!;
  return { key, manifest };
}

/** "/(portal)/tenants/[tenant]/page" → "/tenants/[tenant]". */
export function routeOfManifestKey(key: string): string {
  const segments = key
    .split("/")
    .filter((s) => s && !(s.startsWith("(") && s.endsWith(")")))
    .slice(0, -1); // the trailing "page"
  return `/${segments.join("/")}`;
}

/** Every page route of the build in `nextDir` (usually .next), largest first. */
export function firstLoadJs(nextDir: string): RouteJs[] {
  const buildManifestFile = path.join(nextDir, "build-manifest.json");
  if (!fs.existsSync(buildManifestFile)) throw new Error(`${buildManifestFile} is missing: run \`next build\` first.`);
  const { rootMainFiles } = JSON.parse(fs.readFileSync(buildManifestFile, "utf8")) as { rootMainFiles: string[] };
  const routes: RouteJs[] = [];
  for (const file of manifestsUnder(path.join(nextDir, "server", "app"))) {
    const { key, manifest } = readClientManifest(file);
    const files = new Set(rootMainFiles);
    for (const chunks of Object.values(manifest.entryJSFiles ?? {})) for (const chunk of chunks) files.add(chunk.replace(/^\/_next\//, ""));
    const sorted = [...files].sort();
    routes.push({ route: routeOfManifestKey(key), files: sorted, gzipBytes: sorted.reduce((sum, f) => sum + gzipSize(path.join(nextDir, f)), 0) });
  }
  return routes.sort((a, b) => b.gzipBytes - a.gzipBytes || a.route.localeCompare(b.route));
}

/** The root main files alone (React, Next's runtime): what every route loads whatever it holds. */
export function frameworkJs(nextDir: string): number {
  const { rootMainFiles } = JSON.parse(fs.readFileSync(path.join(nextDir, "build-manifest.json"), "utf8")) as { rootMainFiles: string[] };
  return rootMainFiles.reduce((sum, f) => sum + gzipSize(path.join(nextDir, f)), 0);
}

/**
 * Routes allowed more than FIRST_LOAD_BUDGET_BYTES, each with why. A ceiling here is a measured
 * figure with a little room, not a target: the budget test fails when a route passes its ceiling,
 * and also when a route listed here has come back under the common budget (so a ceiling is never
 * left standing higher than it needs to be).
 */
const REQUEST_FORM = "the request form parses amounts as they are typed with the zod schemas the server parses with (lib/quota/amount-inputs.ts), for its live preview";
const SPEND = "the spend charts and their refresh (@tanstack/react-query)";
export const ROUTE_CEILINGS: Record<string, { bytes: number; why: string }> = {
  "/tenants/[tenant]/projects/[project]/quota/new": { bytes: 192_000, why: REQUEST_FORM },
  "/tenants/[tenant]/projects/[project]/quota/requests/[id]/edit": { bytes: 192_000, why: REQUEST_FORM },
  "/admin/spend": { bytes: 173_000, why: SPEND },
  "/tenants/[tenant]/spend": { bytes: 173_000, why: SPEND },
  "/tenants/[tenant]/projects/[project]/spend": { bytes: 173_000, why: SPEND },
};

export function budgetOf(route: string): { bytes: number; why: string | null } {
  const ceiling = ROUTE_CEILINGS[route];
  return ceiling ? ceiling : { bytes: FIRST_LOAD_BUDGET_BYTES, why: null };
}
