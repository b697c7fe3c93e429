import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditEvents, instanceSettings } from "@/db/schema";
import { verifyAuditChain } from "@/lib/audit/verify";
import { executeCommand } from "@/lib/auth/command";
import { databaseLabel } from "@/test/database";
import { appErrorOf, auditLog, contextOf, type PersonaKey } from "@/test/fixtures";
import { DAY, fingerprint, seededDatabase } from "@/test/tenancy";
import { idleChargeback } from "../chargeback-query";
import { IDLE_COST_KEY, idleModeAt, loadIdleModeHistory } from "../idle-mode";
import { setIdleCostMode } from "./idle-cost";

/**
 * Choosing the idle cost rule (apart or chargeback) on a real database: only
 * platform admins may (platform.idle_cost.manage), a refusal or a bad input
 * writes nothing, each change is audited with what it replaced, it rules from
 * the start of the next UTC day (today is still reported under the rule it
 * began with), and the history of earlier days is kept, so a day already
 * reported is never reported under another rule.
 */
const NOW = new Date("2026-05-10T12:34:00Z");
const TOMORROW = new Date("2026-05-11T00:00:00Z");
const seeded = seededDatabase(new Date("2026-05-01T00:00:00Z"));
const TABLES = ["instance_settings", "audit_events"] as const;

const storedChanges = async () => {
  const [row] = await seeded.db.select().from(instanceSettings).where(eq(instanceSettings.key, IDLE_COST_KEY));
  return (row?.value as { changes: { mode: string; effectiveFrom: string }[] } | undefined)?.changes ?? null;
};
const setAs = async (persona: PersonaKey, input: unknown, now = NOW) => executeCommand(setIdleCostMode, await contextOf(seeded.db, persona, now), input);
const idleEvents = async () => (await auditLog(seeded.db)).filter((e) => e.action === "idle_cost.mode_changed");

describe(`choosing the idle cost rule (${databaseLabel()})`, () => {
  beforeAll(async () => {
    // The env default (ALLOT_IDLE_COST unset) is apart and nothing is stored yet.
    expect((await loadIdleModeHistory(seeded.db)).initial).toBe("apart");
    expect(await storedChanges()).toBeNull();
  });

  it.each(["vision-admin", "language-admin", "data-scientist", "viewer", "collaborator"] as const)("refuses %s (not a platform admin) and writes nothing", async (persona) => {
    const before = await fingerprint(seeded.db, [...TABLES]);
    expect((await appErrorOf(setAs(persona, { mode: "chargeback" }))).code).toBe("forbidden");
    expect(await fingerprint(seeded.db, [...TABLES])).toEqual(before);
  });

  it.each([
    ["an unknown rule", { mode: "sometimes" }],
    ["no rule", {}],
    ["a rule of the wrong type", { mode: 1 }],
  ])("refuses %s naming the field, and writes nothing", async (_what, input) => {
    const before = await fingerprint(seeded.db, [...TABLES]);
    const error = await appErrorOf(setAs("platform-admin", input));
    expect(error.code).toBe("validation");
    expect(Object.keys(error.fields ?? {})).toEqual(["mode"]);
    expect(error.fields!.mode!.join(" ")).toMatch(/^Choose one of: apart, chargeback\.$/);
    expect(await fingerprint(seeded.db, [...TABLES])).toEqual(before);
  });

  it("a platform admin's choice rules from the next UTC day, audited with what it replaced; today keeps its rule", async () => {
    const result = await setAs("platform-admin", { mode: "chargeback" });
    expect(result).toEqual({ mode: "chargeback", effectiveFrom: TOMORROW, changed: true });
    expect(await storedChanges()).toEqual([{ mode: "chargeback", effectiveFrom: TOMORROW.toISOString() }]);
    const history = await loadIdleModeHistory(seeded.db);
    expect(idleModeAt(history, NOW)).toBe("apart");
    expect(idleModeAt(history, new Date(TOMORROW.getTime() - 1))).toBe("apart");
    expect(idleModeAt(history, TOMORROW)).toBe("chargeback");
    // The reports read the same history: today's window is still apart, and nothing of it is charged back.
    const today = await idleChargeback(seeded.db, { from: new Date("2026-05-10T00:00:00Z"), to: TOMORROW }, NOW);
    expect(today.mode).toBe("apart");
    expect(today.periods).toEqual([]);

    const [event] = await idleEvents();
    expect(event).toMatchObject({
      action: "idle_cost.mode_changed",
      tenantId: null,
      targetType: "instance_setting",
      targetId: IDLE_COST_KEY,
      before: { mode: "apart", changes: [] },
      after: { mode: "chargeback", effectiveFrom: TOMORROW.toISOString(), changes: [{ mode: "chargeback", effectiveFrom: TOMORROW.toISOString() }] },
    });
    expect(event!.actorPrincipalId).toBe((await contextOf(seeded.db, "platform-admin", NOW)).actor.principalId);
    expect(await verifyAuditChain(seeded.db)).toMatchObject({ intact: true });
  });

  it("choosing again the same day replaces the pending choice; choosing what tomorrow already has records nothing", async () => {
    const before = await fingerprint(seeded.db, [...TABLES]);
    expect(await setAs("platform-admin", { mode: "chargeback" }, new Date(NOW.getTime() + 3_600_000))).toEqual({ mode: "chargeback", effectiveFrom: TOMORROW, changed: false });
    expect(await fingerprint(seeded.db, [...TABLES])).toEqual(before);

    expect(await setAs("platform-admin", { mode: "apart" })).toEqual({ mode: "apart", effectiveFrom: TOMORROW, changed: true });
    // Back to the default for tomorrow: no change is pending.
    expect(await storedChanges()).toEqual([]);
    expect((await idleEvents()).at(-1)).toMatchObject({ before: { mode: "chargeback" }, after: { mode: "apart", changes: [] } });
    expect(await setAs("platform-admin", { mode: "chargeback" })).toMatchObject({ changed: true });
  });

  it("keeps the history: later changes rule from their own next day, and earlier days keep the rule they began with", async () => {
    const dayAfter = new Date(TOMORROW.getTime() + DAY);
    // Tomorrow (chargeback in force since midnight), the admin goes back to apart: from the day after.
    expect(await setAs("platform-admin", { mode: "apart" }, new Date(TOMORROW.getTime() + 8 * 3_600_000))).toEqual({ mode: "apart", effectiveFrom: dayAfter, changed: true });
    expect(await storedChanges()).toEqual([
      { mode: "chargeback", effectiveFrom: TOMORROW.toISOString() },
      { mode: "apart", effectiveFrom: dayAfter.toISOString() },
    ]);
    const history = await loadIdleModeHistory(seeded.db);
    expect([NOW, TOMORROW, dayAfter].map((at) => idleModeAt(history, at))).toEqual(["apart", "chargeback", "apart"]);
    const window = await idleChargeback(seeded.db, { from: new Date("2026-05-10T00:00:00Z"), to: new Date(dayAfter.getTime() + DAY) }, new Date(dayAfter.getTime() + DAY));
    expect(window.rule).toMatch(/^From 2026-05-10 to 2026-05-10, idle capacity cost is shown apart.*; from 2026-05-11 to 2026-05-11, each UTC day's idle.*; from 2026-05-12 to 2026-05-12, idle capacity cost is shown apart/);
    // Every change was audited, the chain unbroken.
    expect((await idleEvents()).map((e) => (e.after as { mode: string }).mode)).toEqual(["chargeback", "apart", "chargeback", "apart"]);
    expect(await seeded.db.select().from(auditEvents).where(eq(auditEvents.action, "idle_cost.mode_changed"))).toHaveLength(4);
    expect(await verifyAuditChain(seeded.db)).toMatchObject({ intact: true });
  });
});
