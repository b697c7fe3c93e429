import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { accessReviewItems } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { parseConfig, type AllotConfig } from "@/lib/config";
import { toCsv } from "@/lib/csv";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf, personaEmail, principalIdOf } from "@/test/fixtures";
import { DAY, seededDatabase } from "@/test/tenancy";
import { closeReviewNow } from "./close";
import { decideReviewItems, openPlatformReview } from "./commands";
import { REVIEW_CSV_COLUMNS } from "./csv";
import { reviewDetail } from "./queries";

/** Platform admins named in ALLOT_PLATFORM_ADMINS in a platform review: listed, never revoked from the portal. */

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const NEVER_SIGNED_IN = "new-ops@example.com";

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
const globalConfig = globalThis as unknown as { allotConfig?: AllotConfig };
const previousConfig = globalConfig.allotConfig;
beforeAll(() => {
  db = seeded.db;
  globalConfig.allotConfig = parseConfig({ ALLOT_PLATFORM_ADMINS: `${personaEmail("vision-admin")},${NEVER_SIGNED_IN},${personaEmail("platform-admin")}` });
});
afterAll(() => {
  globalConfig.allotConfig = previousConfig;
});

describe(`environment platform admins in a platform review (${databaseLabel()})`, () => {
  it("lists them, with or without a principal, refuses to revoke them, exports them, and keeps and flags them when the rule would revoke", async () => {
    const priya = await contextOf(db, "platform-admin", NOW);
    const { reviewId } = await executeCommand(openPlatformReview, priya, { deadline: new Date(NOW.getTime() + 14 * DAY).toISOString(), rule: "revoke" });
    const rows = await db.select().from(accessReviewItems).where(eq(accessReviewItems.reviewId, reviewId));
    const visionAdmin = await principalIdOf(db, personaEmail("vision-admin"));

    const signedIn = rows.find((r) => r.principalId === visionAdmin)!;
    expect(signedIn).toMatchObject({ kind: "platform_admin", access: "platform admin (configured by environment: change it in the deployment)", principalEmail: personaEmail("vision-admin") });
    const neverSignedIn = rows.find((r) => r.principalEmail === NEVER_SIGNED_IN)!;
    expect(neverSignedIn).toMatchObject({ kind: "platform_admin", principalId: null, principalLabel: NEVER_SIGNED_IN, reviewer: "platform_admins" });
    expect(neverSignedIn.access).toContain("has not signed in yet");
    // Priya holds a row as well: one item, whose text says the environment keeps her an admin whatever is decided.
    const priyaItems = rows.filter((r) => r.principalId === priya.actor.principalId);
    expect(priyaItems).toHaveLength(1);
    expect(priyaItems[0]!.access).toMatch(/; also configured by environment: change it in the deployment$/);

    const refused = await appErrorOf(executeCommand(decideReviewItems, priya, { reviewId, itemIds: [neverSignedIn.id], decision: "revoke" }));
    expect(refused.code).toBe("conflict");
    expect(refused.message).toContain("change it in the deployment");
    expect((await db.select().from(accessReviewItems).where(eq(accessReviewItems.id, neverSignedIn.id)))[0]!.decision).toBeNull();
    await executeCommand(decideReviewItems, priya, { reviewId, itemIds: [signedIn.id], decision: "keep" });

    const csv = toCsv((await reviewDetail(priya, reviewId))!.items, REVIEW_CSV_COLUMNS);
    expect(csv).toContain(`\r\nplatform admin (configured by environment: change it in the deployment; has not signed in yet),${NEVER_SIGNED_IN},${NEVER_SIGNED_IN},platform admin,Platform admins,,,,\r\n`);

    await executeCommand(closeReviewNow, await contextOf(db, "platform-admin", new Date(NOW.getTime() + DAY)), { reviewId });
    const closed = (await db.select().from(accessReviewItems).where(eq(accessReviewItems.id, neverSignedIn.id)))[0]!;
    expect(closed).toMatchObject({ decision: "keep", flagged: true });
    expect(closed.note).toContain("revoking was refused: Platform admin configured by environment");
  });
});
