import fs from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { NARROW, seriousAccessibilityViolations, sidewaysOverflow } from "./support/checks";
import { PERSONA_KEYS, SIGNED_OUT, storageStateOf, type PersonaKey } from "./support/personas";

/**
 * Every page each persona can reach, on a phone: none scrolls sideways and none
 * has a serious or critical axe violation. The pages are found as a person
 * finds them, by following the links from the home page (the demo data's real
 * ids), and the union over the personas must cover every page route in app/,
 * so a page added later is swept too, or this test says which one it missed.
 */

const APP_DIR = path.resolve(__dirname, "..", "app");

/** Page routes the demo data links nowhere, and why. */
const NOT_LINKED = new Map([
  ["/invite/[token]", "reached from an invitation link handed out elsewhere (member-invitation.tenancy.spec.ts)"],
  ["/reviews/[id]", "exists once an access review is started; the demo data has none (access-review.reviews.spec.ts)"],
  ["/tenants/[tenant]/service-accounts/[account]", "the demo data has no service accounts; service-account-token.tenancy.spec.ts opens one from the list (axe, both widths, no sideways scroll)"],
  ["/admin/capacity/import", "linked in live mode only: a record-only portal has no cluster to import from"],
  ["/tenants/[tenant]/projects/[project]/quota/requests/[id]/edit", "linked for the requester of a pending request only; the demo's requests are all decided (quota-request-conversation.changes.spec.ts edits one)"],
]);

/** Links that lead to downloads, JSON or the API rather than to pages. */
const NOT_A_PAGE = /^\/(api|oauth|scim|healthz|readyz)\/|\/(export|data|yaml)$|\.yaml$/;

/** The URL pattern of every page.tsx under app/ ("/tenants/[tenant]"), route groups left out. */
function pageRoutes(dir = APP_DIR, prefix = ""): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isFile()) return entry.name === "page.tsx" ? [prefix || "/"] : [];
    if (!entry.isDirectory()) return [];
    const segment = /^\(.*\)$/.test(entry.name) ? "" : `/${entry.name}`;
    return pageRoutes(path.join(dir, entry.name), prefix + segment);
  });
}

function matcherOf(route: string): RegExp {
  const pattern = route.replace(/\[[^\]]+\]/g, "[^/]+");
  return new RegExp(`^${pattern}$`);
}

/** Same-origin links on the page, as paths without query or fragment (a page is swept once, not once per filter). */
async function linkedPaths(page: Page): Promise<string[]> {
  const origin = new URL(page.url()).origin;
  const hrefs = await page.locator("a[href]").evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
  return hrefs.map((href) => new URL(href)).filter((url) => url.origin === origin && !NOT_A_PAGE.test(url.pathname)).map((url) => url.pathname);
}

/** Pages of one route seen per person: the same template with other rows adds time, rarely findings. */
const PAGES_PER_ROUTE = 3;

const ROUTES = pageRoutes();

function routeOf(pathname: string): string | undefined {
  return ROUTES.find((route) => matcherOf(route).test(pathname));
}

type Sweep = { visited: string[]; problems: string[] };

/**
 * Follows every link from `start`, breadth first. Each page is measured for
 * sideways scrolling; axe runs on the first page of each route (`axeDone` is
 * shared by the personas): it takes seconds a page, and the journeys run it on
 * what each persona sees besides (saveScreenshot).
 */
async function sweep(page: Page, start: string, axeDone: Set<string>): Promise<Sweep> {
  const queue = [start];
  const seen = new Set(queue);
  const perRoute = new Map<string, number>();
  const visited: string[] = [];
  const problems: string[] = [];
  while (queue.length > 0) {
    const pathname = queue.shift()!;
    const response = await page.goto(pathname);
    // A link to a page the person may not open (404) or one that sends them on is not a page they reach.
    if (!response || response.status() !== 200 || new URL(page.url()).pathname !== pathname) {
      if (response && response.status() >= 500) problems.push(`${pathname} answered ${response.status()}`);
      continue;
    }
    visited.push(pathname);
    const overflow = await sidewaysOverflow(page);
    if (overflow > 0) problems.push(`${pathname} scrolls sideways by ${overflow} px at ${NARROW.width} px`);
    const route = routeOf(pathname)!;
    if (!axeDone.has(route)) {
      axeDone.add(route);
      for (const violation of await seriousAccessibilityViolations(page)) problems.push(`${pathname}: ${violation}`);
    }
    for (const next of await linkedPaths(page)) {
      const nextRoute = routeOf(next);
      if (seen.has(next) || nextRoute === undefined || (perRoute.get(nextRoute) ?? 0) >= PAGES_PER_ROUTE) continue;
      perRoute.set(nextRoute, (perRoute.get(nextRoute) ?? 0) + 1);
      seen.add(next);
      queue.push(next);
    }
  }
  return { visited, problems };
}

// Tenant admins first (they see a tenant's pages with every control), then the platform admin (the admin area), then the rest.
const WHO: (PersonaKey | "signed out")[] = ["signed out", "alex", "bo", "priya", "dana", "vic", "cleo"];

test("every page a persona reaches fits a phone and passes axe", async ({ browser }) => {
  test.setTimeout(420_000);
  expect([...WHO].sort(), "every persona is swept").toEqual(["signed out", ...PERSONA_KEYS].sort());
  const axeDone = new Set<string>();
  const reached = new Set<string>();
  let pages = 0;
  for (const persona of WHO) {
    const context = await browser.newContext({ viewport: NARROW, storageState: persona === "signed out" ? SIGNED_OUT : storageStateOf(persona) });
    const result = await sweep(await context.newPage(), persona === "signed out" ? "/sign-in" : "/", axeDone);
    await context.close();
    pages += result.visited.length;
    for (const p of result.visited) reached.add(p);
    console.log(`${persona}: ${result.visited.length} pages swept at ${NARROW.width} px, ${result.problems.length} problems`);
    expect.soft(result.problems, `what ${persona} meets`).toEqual([]);
  }
  console.log(`Swept ${pages} pages (${reached.size} distinct, ${axeDone.size} routes through axe) at ${NARROW.width} px.`);
  const missed = ROUTES.filter((route) => !NOT_LINKED.has(route) && ![...reached].some((p) => matcherOf(route).test(p)));
  expect(missed, "page routes no persona reached by following links").toEqual([]);
});
