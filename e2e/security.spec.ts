import { expect, test, type Response } from "@playwright/test";
import { HomePage } from "./pages/home-page";
import { PortalHeader } from "./pages/portal-header";
import { SignInPage } from "./pages/sign-in-page";
import { PERSONAS, SIGNED_OUT } from "./support/personas";

/** The CSP directives of a response, by name. */
function cspOf(response: Response): Map<string, string[]> {
  const header = response.headers()["content-security-policy"];
  expect(header, `Content-Security-Policy on ${response.url()}`).toBeTruthy();
  return new Map(
    (header ?? "")
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

function expectBaselineHeaders(response: Response): Map<string, string[]> {
  const headers = response.headers();
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(headers["x-frame-options"]).toBe("DENY");
  const csp = cspOf(response);
  expect(response.headers()["content-security-policy"]).not.toContain("'unsafe-eval'");
  expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
  expect(csp.get("object-src")).toEqual(["'none'"]);
  expect(csp.get("script-src")).toEqual(expect.arrayContaining(["'self'", "'strict-dynamic'", expect.stringMatching(/^'nonce-[A-Za-z0-9+/=]+'$/)]));
  return csp;
}

function nonceOf(csp: Map<string, string[]>): string {
  const source = csp.get("script-src")?.find((v) => v.startsWith("'nonce-")) ?? "";
  return source.slice("'nonce-".length, -1);
}

test.describe("security baseline", () => {
  test.use({ storageState: SIGNED_OUT });

  test("the session cookie is HttpOnly and SameSite=Lax, and pages carry a nonce CSP that their scripts satisfy", async ({ page }) => {
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });

    const signInResponse = await page.goto("/sign-in");
    expect(signInResponse?.status()).toBe(200);
    const signInNonce = nonceOf(expectBaselineHeaders(signInResponse!));

    // Sign in and catch the response that sets the session cookie.
    const cookieResponse = page.waitForResponse(async (r) => /authjs\.session-token=/.test((await r.headerValue("set-cookie")) ?? ""));
    await new SignInPage(page).signInAs(PERSONAS.alex.name);
    const setCookie = (await (await cookieResponse).headerValue("set-cookie")) ?? "";
    const sessionCookie = setCookie.split("\n").find((c) => c.startsWith("authjs.session-token="));
    expect(sessionCookie).toBeDefined();
    expect(sessionCookie).toMatch(/;\s*HttpOnly(;|$)/i);
    expect(sessionCookie).toMatch(/;\s*SameSite=Lax(;|$)/i);
    expect(sessionCookie).toMatch(/;\s*Path=\/(;|$)/i);
    const stored = (await page.context().cookies()).find((c) => c.name === "authjs.session-token");
    expect(stored).toMatchObject({ httpOnly: true, sameSite: "Lax" });

    // A signed-in page: same headers, and every script Next emitted carries this response's nonce.
    const homeResponse = await page.goto("/");
    expect(homeResponse?.status()).toBe(200);
    const nonce = nonceOf(expectBaselineHeaders(homeResponse!));
    expect(nonce, "a fresh nonce for every response").not.toBe(signInNonce);
    await expect(new HomePage(page).heading).toHaveText("Welcome, Alex");
    const scriptNonces = await page.locator("script").evaluateAll((scripts) => scripts.map((s) => (s as HTMLScriptElement).nonce));
    expect(scriptNonces.length).toBeGreaterThan(0);
    expect(scriptNonces.every((n) => n === nonce)).toBe(true);
    // The client is hydrated (the account menu opens), with nothing blocked by the policy.
    const menu = await new PortalHeader(page).openAccountMenu(PERSONAS.alex.name);
    await expect(menu.getByRole("menuitem", { name: "Sign out" })).toBeVisible();
    expect(violations).toEqual([]);
  });
});

test("health: /healthz answers ok, /readyz reports the database ready", async ({ request }) => {
  const health = await request.get("/healthz");
  expect(health.status()).toBe(200);
  expect(await health.json()).toEqual({ status: "ok" });
  expect(health.headers()["cache-control"]).toBe("no-store");

  const ready = await request.get("/readyz");
  expect(ready.status()).toBe(200);
  expect(await ready.json()).toEqual({ status: "ready", database: "ok" });
});
