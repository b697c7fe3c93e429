import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { proxy } from "@/proxy";

/**
 * The proxy (proxy.ts) runs before Next's router: an address whose path does
 * not decode to text, or whose query carries a NUL, is answered 400 there,
 * with the API's JSON error body under /api/.
 */

const SESSION = "authjs.session-token=x";
const call = (path: string, cookie?: string) => proxy(new NextRequest(`http://localhost${path}`, cookie ? { headers: { cookie } } : undefined));

describe("proxy: addresses that cannot name anything", () => {
  it.each([
    ["/api/v1/tenants/%C3%28/projects", "invalid UTF-8 in a path parameter"],
    ["/api/v1/tenants/vision-lab/projects/%FF", "a byte that is never UTF-8"],
    ["/api/v1/tenants/%ED%A0%80", "an encoded lone surrogate"],
    ["/api/v1/tenants/%G1", "a malformed escape"],
    ["/api/v1/tenants/vision%00lab/projects", "an encoded NUL"],
  ])("answers %s (%s) with 400 validation and the JSON error body", async (path) => {
    const response = call(path);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: "validation", message: expect.stringMatching(/path is not valid/) as unknown } });
  });

  it("answers a NUL in an API query with 400 validation", async () => {
    const response = call("/api/v1/audit?from=%00");
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: "validation", message: expect.stringMatching(/^Invalid query/) as unknown } });
  });

  it.each([
    ["/tenants/%C3%28", "a page with invalid UTF-8"],
    ["/tenants/vision-lab/projects/%00", "a page with an encoded NUL"],
    ["/tenants/vision-lab/spend?range=%00", "a page with a NUL in the query"],
  ])("answers %s (%s) with 400, signed in or not", (path) => {
    for (const cookie of [undefined, SESSION]) {
      const response = call(path, cookie);
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    }
  });

  it("lets ordinary addresses through: encoded UTF-8, encoded slashes, a replacement character from bad query bytes", () => {
    for (const path of ["/api/v1/tenants/caf%C3%A9/projects", "/invite/abc%2Bdef", "/api/v1/audit?from=%C3%28", "/tenants/vision-lab?x=%2F%2F"]) {
      const response = call(path, SESSION);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("x-middleware-next"), path).toBe("1");
    }
  });

  it("still sends a signed-out visitor to sign-in", () => {
    const response = call("/tenants/vision-lab");
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe("http://localhost/sign-in?callbackUrl=%2Ftenants%2Fvision-lab");
  });

  it("lets the token exchange through without a session (the subject token is the credential), and nothing beside it", () => {
    expect(call("/oauth/token").status).toBe(200);
    expect(call("/oauth/token/x").status).toBe(307);
    expect(call("/oauth/authorize").status).toBe(307);
  });
});

describe("proxy and SCIM", () => {
  it("lets an identity provider reach /scim/v2 without a session: its own bearer token is checked there", () => {
    const response = call("/scim/v2/Users?filter=userName%20eq%20%22a%40b.c%22");
    expect(response.status).toBe(200);
    expect(response.headers.get("location")).toBeNull();
  });
});
