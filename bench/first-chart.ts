/**
 * Benchmark: how soon a person sees the first chart of each spend page, and
 * the API reference's operations, in a real browser. Run on demand (not part
 * of `npm test`), after a production build:
 *
 *   npm run build
 *   npm run bench:first-chart -- --runs 5
 *
 * It starts `next start` on a fresh embedded database with the demo data
 * (90 days of usage), signs Alex (tenant admin) and Priya (platform admin) in
 * through the demo sign-in page, then loads each page --runs times in
 * Chromium (cache kept, as a returning user has it) and prints, per page, the
 * median and worst of: the HTML's arrival (responseEnd), the first paint
 * with content (FCP), and when the first chart was visible (the chart element
 * laid out with a non-zero size; for the API reference, its first heading),
 * all in ms from navigation start (the Performance API of the page).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { chromium, type Browser, type Page } from "@playwright/test";

const { values: args } = parseArgs({ options: { runs: { type: "string", default: "5" }, port: { type: "string", default: "3498" } } });
const RUNS = Number(args.runs);
const PORT = Number(args.port);
const BASE = `http://localhost:${PORT}`;
const log = (line: string) => console.log(`[bench:first-chart] ${line}`);

/** What counts as "the first chart" of each page, in the order the page shows them. */
const PAGES: { persona: string; path: string; firstChart: string }[] = [
  { persona: "Alex Chen", path: "/tenants/vision-lab/projects/detector-training/spend", firstChart: "[data-testid=cost-chart] [data-period] > div" },
  { persona: "Alex Chen", path: "/tenants/vision-lab/spend", firstChart: "[data-testid=named-cost-bars] li div > div" },
  { persona: "Priya Raman", path: "/admin/spend", firstChart: "[data-testid=named-cost-bars] li div > div" },
  { persona: "Alex Chen", path: "/api-docs", firstChart: "[data-testid=api-reference] h1, [data-testid=api-reference] h2" },
];

function startServer(dataDir: string): ChildProcess {
  const next = path.join("node_modules", "next", "dist", "bin", "next");
  return spawn(process.execPath, [next, "start", "-p", String(PORT)], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: "",
      ALLOT_DATA_DIR: dataDir,
      ALLOT_DEMO: "1",
      AUTH_SECRET: "allot-bench-auth-secret-0123456789-abcdefghijklmnop",
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function waitForReady(server: ChildProcess) {
  for (let i = 0; i < 240; i++) {
    if (server.exitCode !== null) throw new Error(`next start exited with ${server.exitCode}`);
    try {
      if ((await fetch(`${BASE}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("the server did not become ready in 120 s");
}

async function signedIn(browser: Browser, persona: string): Promise<Page> {
  const page = await (await browser.newContext({ baseURL: BASE, viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto("/sign-in");
  await page.getByRole("button", { name: new RegExp(`^Sign in as ${persona}\\b`) }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
  return page;
}

type Timing = { html: number; fcp: number; chart: number };

async function measure(page: Page, pathname: string, selector: string): Promise<Timing> {
  await page.goto(pathname, { waitUntil: "commit" });
  await page.waitForFunction(
    (sel) => [...document.querySelectorAll(sel)].some((e) => e.getBoundingClientRect().width > 0 && e.getBoundingClientRect().height > 0),
    selector,
    { polling: "raf", timeout: 60_000 },
  );
  return page.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
    const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN;
    return { html: Math.round(nav.responseEnd), fcp: Math.round(fcp), chart: Math.round(performance.now()) };
  });
}

/** The median of the runs that have the figure (a page served from the back/forward cache reports no paint). */
const median = (xs: number[]) => {
  const known = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return known.length ? known[Math.floor(known.length / 2)]! : NaN;
};

async function main() {
  if (!fs.existsSync(path.join(".next", "BUILD_ID"))) throw new Error("No production build: run `npm run build` first.");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "allot-bench-first-chart-"));
  const server = startServer(path.join(dataDir, "db"));
  const browser = await chromium.launch({
    ...(fs.existsSync("/usr/bin/chromium") ? { executablePath: "/usr/bin/chromium" } : {}),
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    await waitForReady(server);
    log(`machine: ${os.cpus().length} cores, Node ${process.version}; ${RUNS} runs per page after one warm-up, ms from navigation start`);
    const pages = new Map<string, Page>();
    for (const { persona, path: pathname, firstChart } of PAGES) {
      let page = pages.get(persona);
      if (!page) pages.set(persona, (page = await signedIn(browser, persona)));
      await measure(page, pathname, firstChart);
      const runs: Timing[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await measure(page, pathname, firstChart));
      const of = (k: keyof Timing) => `${median(runs.map((r) => r[k]))} (worst ${Math.max(...runs.map((r) => r[k]).filter((x) => Number.isFinite(x)))})`;
      log(`${pathname.padEnd(52)} HTML ${of("html")}, first paint ${of("fcp")}, first chart ${of("chart")}; chart after HTML ${median(runs.map((r) => r.chart - r.html))} ms`);
    }
  } finally {
    await browser.close();
    server.kill("SIGTERM");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
