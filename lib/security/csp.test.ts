import { describe, expect, it } from "vitest";
import { buildCsp } from "./csp";

describe("buildCsp", () => {
  it("allows scripts only by nonce in production, never eval", () => {
    const csp = buildCsp("abc123", { dev: false, formActionOrigins: [] });
    expect(csp).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
  });

  it("permits eval in development only", () => {
    expect(buildCsp("n", { dev: true, formActionOrigins: [] })).toContain("'unsafe-eval'");
  });

  it("lets sign-in forms redirect to the identity provider", () => {
    expect(buildCsp("n", { dev: false, formActionOrigins: ["https://idp.example.com"] })).toContain("form-action 'self' https://idp.example.com");
  });
});
