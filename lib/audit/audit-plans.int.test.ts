import { describe, expect, it } from "vitest";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { fullScansOf, withoutOrderAndLimit } from "@/test/query-plans";
import { recordStatements } from "@/test/sql-statements";
import { seededDatabase } from "@/test/tenancy";
import { auditFilterInput, listAuditEvents } from "./queries";

/**
 * The audit log grows by an event per change, a million in a year on a big
 * platform: each filter of the audit page (lib/audit/queries.ts), on the first
 * page and a deeper one, must reach its rows through an index. Each statement
 * is planned again with sequential scans off and fails on a full scan of
 * audit_events. Substrings of fewer than three characters have no trigram to
 * look up, so the filters below use longer ones, as people type them.
 */
const NOW = new Date("2026-05-06T12:00:00Z");
const seeded = seededDatabase(new Date("2026-04-01T00:00:00Z"));

const FILTERS: Record<string, Record<string, unknown>> = {
  "no filter": {},
  tenant: { tenant: "vision-lab" },
  "actor by name or email": { actor: "priya" },
  "actor by principal id": { actor: "0b6c2a1e-3f4d-4e5a-9b8c-7d6e5f4a3b2c" },
  action: { action: "quota" },
  target: { target: "project" },
  "from and to": { from: "2026-04-01", to: "2026-04-15" },
  "from only": { from: "2026-04-10" },
  "to only": { to: "2026-04-10" },
  "tenant, action and dates": { tenant: "vision-lab", action: "quota", from: "2026-04-01", to: "2026-05-01" },
};

describe(`the audit log's queries go through an index (${databaseLabel()})`, () => {
  it.each(Object.entries(FILTERS))("%s, on the first page and a deeper one", async (_label, filter) => {
    const ctx = await contextOf(seeded.db, "platform-admin", NOW);
    const { statements } = await recordStatements(async () => {
      await listAuditEvents(ctx, auditFilterInput.parse({ limit: 100, ...filter }));
      await listAuditEvents(ctx, auditFilterInput.parse({ limit: 100, before: 5, ...filter }));
    });
    const audit = statements.filter((s) => /\baudit_events\b/.test(s.text));
    expect(audit.length).toBeGreaterThanOrEqual(2);
    for (const s of audit) {
      expect(await fullScansOf(seeded.db, s, ["audit_events"]), s.text.slice(0, 300)).toEqual([]);
      // Its conditions alone, without the ORDER BY … LIMIT under which walking the primary key and filtering every row is no Seq Scan.
      if (/ where /i.test(s.text)) expect(await fullScansOf(seeded.db, withoutOrderAndLimit(s), ["audit_events"]), `${s.text.slice(0, 300)} (conditions only)`).toEqual([]);
    }
  });

  it("would catch a condition with no index to use, newest first too", async () => {
    // The hash has no index: newest first, the planner walks an index on seq and filters (no Seq Scan); the conditions alone show the full scan.
    const byHash = { text: "select seq from audit_events where hash = $1 order by seq desc limit $2", params: ["x", 100], wave: 0 };
    expect(await fullScansOf(seeded.db, withoutOrderAndLimit(byHash), ["audit_events"])).toEqual(["audit_events"]);
  });
});
