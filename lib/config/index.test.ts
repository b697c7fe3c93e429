import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "./index";

describe("parseConfig", () => {
  it("defaults to the embedded database, demo sign-in and no admins", () => {
    const c = parseConfig({});
    expect(c.database).toEqual({ kind: "pglite", dataDir: ".data" });
    expect(c.demoSignIn).toBe(true);
    expect(c.oidc).toBeNull();
    expect(c.platformAdminEmails).toEqual([]);
  });

  it("uses PostgreSQL when DATABASE_URL is set", () => {
    expect(parseConfig({ DATABASE_URL: "postgres://u@h:5432/db" }).database).toEqual({ kind: "postgres", url: "postgres://u@h:5432/db" });
  });

  it("names the variable and what is allowed when a value is wrong", () => {
    expect(() => parseConfig({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(() => parseConfig({ ALLOT_PLATFORM_ADMINS: "a@b.io, not-an-email" })).toThrow(/ALLOT_PLATFORM_ADMINS/);
    expect(() => parseConfig({ ALLOT_DEMO: "yes" })).toThrow(/ALLOT_DEMO must be 0 or 1/);
    expect(() => parseConfig({ ALLOT_SESSION_HOURS: "abc" })).toThrow(/ALLOT_SESSION_HOURS/);
    expect(() => parseConfig({ AUTH_SECRET: "short" })).toThrow(/AUTH_SECRET must be at least 32 characters/);
  });

  it("requires all three OIDC variables together", () => {
    try {
      parseConfig({ OIDC_ISSUER: "https://idp.example.com" });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems.join("\n")).toMatch(/OIDC_CLIENT_ID is required/);
      expect((e as ConfigError).problems.join("\n")).toMatch(/OIDC_CLIENT_SECRET is required/);
    }
  });

  it("turns demo sign-in off under OIDC unless ALLOT_DEMO=1", () => {
    const oidc = { OIDC_ISSUER: "https://idp.example.com", OIDC_CLIENT_ID: "allot", OIDC_CLIENT_SECRET: "s" };
    expect(parseConfig(oidc).demoSignIn).toBe(false);
    expect(parseConfig({ ...oidc, ALLOT_DEMO: "1" }).demoSignIn).toBe(true);
    expect(parseConfig({ ALLOT_DEMO: "0" }).demoSignIn).toBe(false);
  });

  it("normalises admin emails", () => {
    expect(parseConfig({ ALLOT_PLATFORM_ADMINS: " Ops@Example.com ,b@example.com," }).platformAdminEmails).toEqual([
      "ops@example.com",
      "b@example.com",
    ]);
  });
});
