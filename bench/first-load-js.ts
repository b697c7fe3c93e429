/**
 * First-load JavaScript per route, gzip, read from the production build in .next (run
 * `npm run build` first): the figures the budget test (test/build-output) holds each route to,
 * printed largest first with the budget and the framework's own share (the root main files every
 * route loads: React and Next's runtime) as the reference of the same build.
 *
 *   npm run build && npm run bench:first-load-js
 */
import { budgetOf, firstLoadJs, frameworkJs } from "@/test/build-output/first-load-js";

const kB = (bytes: number) => (bytes / 1000).toFixed(1).padStart(6);
const routes = firstLoadJs(".next");
const framework = frameworkJs(".next");
console.log(`[bench:first-load-js] ${routes.length} routes; framework (root main files, on every route): ${kB(framework).trim()} kB gzip`);
console.log(`${"kB gzip".padStart(7)} ${"budget".padStart(6)} ${"files".padStart(5)}  route`);
for (const r of routes) {
  const budget = budgetOf(r.route);
  console.log(`${kB(r.gzipBytes)} ${kB(budget.bytes)} ${String(r.files.length).padStart(5)}  ${r.route}${r.gzipBytes > budget.bytes ? "  OVER BUDGET" : ""}`);
}
