import { describe, expect, it } from "vitest";
import { tokenExample } from "./token-example";

const NOW = new Date("2026-12-02T12:34:00Z");
const BASE = "https://allot.example.com/";

describe("the curl example beside a service account's token", () => {
  it("says an account without a role can do nothing but read who it is", () => {
    const e = tokenExample(BASE, [], NOW);
    expect(e.reach).toMatch(/^It holds no project role, so a token can do nothing yet/);
    expect(e.command).toBe("curl -H 'Authorization: Bearer $ALLOT_TOKEN' https://allot.example.com/api/v1/me");
  });

  it("reads the quota of a project the account works on, with the token filled in only when given", () => {
    const roles = [
      { tenantSlug: "vision-lab", projectSlug: "detector-training", projectName: "Detector training", role: "meter" as const },
      { tenantSlug: "vision-lab", projectSlug: "eval", projectName: "Eval", role: "viewer" as const },
    ];
    const e = tokenExample(BASE, roles, NOW, "allot_abc_secret");
    expect(e.reach).toBe("A token acts with its roles: Detector training (meter), Eval (viewer).");
    expect(e.command).toBe("curl -H 'Authorization: Bearer allot_abc_secret' https://allot.example.com/api/v1/tenants/vision-lab/projects/eval/quota");
  });

  it("pushes a sample of the last whole hour for a metering account", () => {
    const e = tokenExample(BASE, [{ tenantSlug: "vision-lab", projectSlug: "detector-training", projectName: "Detector training", role: "meter" }], NOW);
    expect(e.command).toContain("-X POST");
    expect(e.command).toContain('"hour":"2026-12-02T11:00:00Z"');
    expect(e.command.endsWith("https://allot.example.com/api/v1/usage")).toBe(true);
  });
});
