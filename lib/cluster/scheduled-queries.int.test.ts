import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { clusterScheduledChanges } from "@/db/schema";
import { databaseLabel } from "@/test/database";
import { DAY, projectIdOf, seededDatabase } from "@/test/tenancy";
import { enqueueDueScheduledChanges } from "./scheduled-scan";
import { scheduledClusterChanges } from "./scheduled-queries";

/**
 * What the cluster pages list as "scheduled for": the rows of
 * cluster_scheduled_changes still ahead. The demo seed schedules one, the end
 * of Cleo's access to Chat evaluation 60 days after seeding.
 */
const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const CLEO_ENDS = new Date(SEEDED_AT.getTime() + 60 * DAY);
const seeded = seededDatabase(SEEDED_AT);
let db: Database;

beforeAll(() => {
  db = seeded.db;
});

describe(`scheduled cluster changes (${databaseLabel()})`, () => {
  it("lists the seeded expiry with its instant and target, for the platform and for its project only", async () => {
    const all = await scheduledClusterChanges(db, SEEDED_AT);
    expect(all.map((s) => [s.tenantSlug, s.projectSlug, s.namespace, s.reason, s.dueAt.toISOString()])).toEqual([
      ["language-models", "chat-eval", "language-models--chat-eval", "access expires", CLEO_ENDS.toISOString()],
    ]);
    expect(await scheduledClusterChanges(db, SEEDED_AT, { projectId: await projectIdOf(db, "language-models", "chat-eval") })).toHaveLength(1);
    expect(await scheduledClusterChanges(db, SEEDED_AT, { projectId: await projectIdOf(db, "vision-lab", "detector-training") })).toEqual([]);
  });

  it("leaves out a row once its instant has come, and once the scan has enqueued it: it is no longer scheduled", async () => {
    expect(await scheduledClusterChanges(db, CLEO_ENDS)).toEqual([]);
    expect(await enqueueDueScheduledChanges(db, CLEO_ENDS)).toBe(1);
    const [row] = await db.select().from(clusterScheduledChanges).where(eq(clusterScheduledChanges.reason, "access expires"));
    expect(row!.enqueuedAt).not.toBeNull();
    expect(await scheduledClusterChanges(db, SEEDED_AT)).toEqual([]);
  });
});
