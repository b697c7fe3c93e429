import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { notifications } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf, personaEmail, principalIdOf } from "@/test/fixtures";
import { seededDatabase } from "@/test/tenancy";
import { markNotificationsRead } from "./commands";
import { notify } from "./in-app";
import { myNotifications, unreadNotificationCount } from "./queries";

/** Principals mark their own notices read, one or all, and never anyone else's. */

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let dana: string;
let alex: string;

const readAtOf = async (id: string) => (await db.select({ readAt: notifications.readAt }).from(notifications).where(eq(notifications.id, id)))[0]?.readAt ?? null;

beforeAll(async () => {
  db = seeded.db;
  dana = await principalIdOf(db, personaEmail("data-scientist"));
  alex = await principalIdOf(db, personaEmail("vision-admin"));
  await notify(db, [dana, alex], { kind: "test", title: "First notice", link: "/" }, new Date(NOW.getTime() - 3_000));
  await notify(db, [dana, alex], { kind: "test", title: "Second notice" }, new Date(NOW.getTime() - 2_000));
  await notify(db, [dana], { kind: "test", title: "Third notice" }, new Date(NOW.getTime() - 1_000));
});

describe(`markNotificationsRead (${databaseLabel()})`, () => {
  it("lists a principal's own notices newest first, with the unread count", async () => {
    const ctx = await contextOf(db, "data-scientist", NOW);
    expect((await myNotifications(ctx)).map((n) => n.title)).toEqual(["Third notice", "Second notice", "First notice"]);
    expect(await unreadNotificationCount(ctx)).toBe(3);
    expect(await unreadNotificationCount(await contextOf(db, "vision-admin", NOW))).toBe(2);
  });

  it("marks one of one's own notices read, and only that one", async () => {
    const ctx = await contextOf(db, "data-scientist", NOW);
    const [third] = await myNotifications(ctx);
    expect(await executeCommand(markNotificationsRead, ctx, { notificationId: third!.id })).toEqual({ marked: 1 });
    expect(await readAtOf(third!.id)).toEqual(NOW);
    expect(await unreadNotificationCount(ctx)).toBe(2);
    // Again: already read, nothing to do.
    expect(await executeCommand(markNotificationsRead, ctx, { notificationId: third!.id })).toEqual({ marked: 0 });
  });

  it("refuses someone else's notice as not found and leaves it unread", async () => {
    const alexCtx = await contextOf(db, "vision-admin", NOW);
    const [alexNotice] = await myNotifications(alexCtx);
    const danaCtx = await contextOf(db, "data-scientist", NOW);
    const error = await appErrorOf(executeCommand(markNotificationsRead, danaCtx, { notificationId: alexNotice!.id }));
    expect(error.code).toBe("not_found");
    expect(await readAtOf(alexNotice!.id)).toBeNull();
    // Platform admins are no exception: a notice is its addressee's alone.
    const priya = await contextOf(db, "platform-admin", NOW);
    expect((await appErrorOf(executeCommand(markNotificationsRead, priya, { notificationId: alexNotice!.id }))).code).toBe("not_found");
    expect(await unreadNotificationCount(alexCtx)).toBe(2);
  });

  it("marks all of one's own unread notices read, nobody else's", async () => {
    const ctx = await contextOf(db, "data-scientist", NOW);
    expect(await executeCommand(markNotificationsRead, ctx, {})).toEqual({ marked: 2 });
    expect(await unreadNotificationCount(ctx)).toBe(0);
    const own = await db.select().from(notifications).where(eq(notifications.principalId, dana));
    expect(own.every((n) => n.readAt !== null)).toBe(true);
    const others = await db.select().from(notifications).where(eq(notifications.principalId, alex));
    expect(others.map((n) => n.readAt)).toEqual([null, null]);
    expect(await executeCommand(markNotificationsRead, ctx, { notificationId: "" })).toEqual({ marked: 0 });
  });

  it("refuses an id that is not an id", async () => {
    const ctx = await contextOf(db, "data-scientist", NOW);
    const error = await appErrorOf(executeCommand(markNotificationsRead, ctx, { notificationId: "nope" }));
    expect(error.code).toBe("validation");
    expect(error.fields).toEqual({ notificationId: ["Enter a valid id: reload the page and try again."] });
  });
});
