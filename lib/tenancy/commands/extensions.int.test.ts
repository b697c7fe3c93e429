import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { accessExtensionRequests, notifications, projectGrants, remindersSent } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { sendExpiryReminders } from "@/lib/reminders/send";
import { databaseLabel } from "@/test/database";
import { appErrorOf, auditLog, contextOf, personaEmail, principalIdOf } from "@/test/fixtures";
import { addGrant, contextFor, DAY, projectIdOf, seededDatabase, uniqueEmail, userWithEmail } from "@/test/tenancy";
import { declineExtension, grantExtension, requestExtension } from "./extensions";

/**
 * Extensions asked for from a reminder and answered by the sponsor: the grant's
 * end moves and new reminders follow; declines; the maximum term; who may do
 * what, across tenants and after expiry.
 */
const SEEDED = new Date("2026-12-01T08:00:00.000Z");
const seeded = seededDatabase(SEEDED);
let db: Database;
let chatEval: string;
let languageAdmin: string;
const NOW = new Date("2027-01-20T09:00:00.000Z");
const END = new Date("2027-01-30T08:00:00.000Z"); // the seeded collaborator's end: 60 days after seeding
const chat = { tenant: "language-models", project: "chat-eval" };
const iso = (d: Date) => d.toISOString();

beforeAll(async () => {
  db = seeded.db;
  chatEval = await projectIdOf(db, "language-models", "chat-eval");
  languageAdmin = await principalIdOf(db, personaEmail("language-admin"));
});

async function guest(expiresAt: Date) {
  const principalId = await userWithEmail(db, uniqueEmail("guest"), SEEDED);
  const grantId = await addGrant(db, { projectId: chatEval, principalId, role: "viewer", expiresAt, grantedBy: languageAdmin, createdAt: SEEDED });
  return { principalId, grantId };
}
const grantEnd = async (id: string) => (await db.select({ e: projectGrants.expiresAt }).from(projectGrants).where(eq(projectGrants.id, id)))[0]!.e;

describe(`access extensions (${databaseLabel()})`, () => {
  it("from the reminder to a granted extension, and the new end gets its own reminders", async () => {
    const cleo = await contextOf(db, "collaborator", NOW);
    const [grant] = await db.select().from(projectGrants).where(eq(projectGrants.principalId, cleo.actor.principalId));
    expect(grant!.expiresAt).toEqual(END);
    // The 14-day reminder of the seeded end, sent before the extension.
    await sendExpiryReminders(db, NOW);
    const until = new Date(END.getTime() + 30 * DAY);
    const asked = await executeCommand(requestExtension, cleo, { ...chat, until: iso(until), reason: "The evaluation runs until the end of February." });
    const admins = await db.select().from(notifications).where(and(eq(notifications.principalId, languageAdmin), eq(notifications.kind, "access.extension_requested")));
    expect(admins.map((n) => [n.title, n.link])).toEqual([["Cleo Park asks for more time on Chat evaluation", "/tenants/language-models/collaborators"]]);
    // One pending request per grant.
    expect((await appErrorOf(executeCommand(requestExtension, cleo, { ...chat, until: iso(until), reason: "Asking a second time, to be sure." }))).code).toBe("conflict");

    const later = new Date(NOW.getTime() + DAY);
    const granted = await executeCommand(grantExtension, await contextOf(db, "language-admin", later), { requestId: asked.requestId });
    expect(granted.expiresAt).toEqual(until);
    expect(await grantEnd(grant!.id)).toEqual(until);
    const [request] = await db.select().from(accessExtensionRequests).where(eq(accessExtensionRequests.id, asked.requestId));
    expect(request).toMatchObject({ status: "granted", decidedBy: languageAdmin, decidedAt: later, currentExpiresAt: END, requestedUntil: until });
    const told = await db.select().from(notifications).where(and(eq(notifications.principalId, cleo.actor.principalId), eq(notifications.kind, "access.extension_granted")));
    expect(told.map((n) => n.title)).toEqual(["Your access to Chat evaluation is extended until 1 Mar 2027, 08:00 UTC"]);
    const audit = (await auditLog(db)).filter((e) => e.targetId === grant!.id).map((e) => e.action);
    expect(audit).toEqual(["project_grant.extension_requested", "project_grant.extension_granted"]);

    // The old end's 1-day threshold passes without a reminder; the new end's 14-day one comes.
    await sendExpiryReminders(db, new Date(END.getTime() - 12 * 3_600_000));
    await sendExpiryReminders(db, new Date(until.getTime() - 10 * DAY));
    const sent = await db.select().from(remindersSent).where(eq(remindersSent.subjectId, grant!.id));
    expect(sent.map((r) => [iso(r.expiresAt), r.thresholdDays]).sort()).toEqual([
      [iso(END), 14],
      [iso(until), 14],
    ]);
  });

  it("a decline leaves the end as it was and tells the requester", async () => {
    const end = new Date(NOW.getTime() + 5 * DAY);
    const g = await guest(end);
    const ctx = await contextFor(db, g.principalId, NOW);
    const asked = await executeCommand(requestExtension, ctx, { ...chat, until: iso(new Date(end.getTime() + 10 * DAY)), reason: "Need to finish the report." });
    await executeCommand(declineExtension, await contextOf(db, "language-admin", NOW), { requestId: asked.requestId, note: "The project closes this month." });
    expect(await grantEnd(g.grantId)).toEqual(end);
    const [request] = await db.select().from(accessExtensionRequests).where(eq(accessExtensionRequests.id, asked.requestId));
    expect(request).toMatchObject({ status: "declined", decisionNote: "The project closes this month." });
    const told = await db.select().from(notifications).where(and(eq(notifications.principalId, g.principalId), eq(notifications.kind, "access.extension_declined")));
    expect(told.map((n) => [n.title, n.body])).toEqual([["Your request for more time on Chat evaluation was declined", "The project closes this month."]]);
    // Decided once: a second answer is a conflict.
    expect((await appErrorOf(executeCommand(grantExtension, await contextOf(db, "language-admin", NOW), { requestId: asked.requestId }))).code).toBe("conflict");
    // After a decline the holder may ask again.
    await executeCommand(requestExtension, ctx, { ...chat, until: iso(new Date(end.getTime() + 3 * DAY)), reason: "Three days would be enough." });
  });

  it("refuses a date beyond the maximum term, or not later than the present end, naming the field", async () => {
    const end = new Date(NOW.getTime() + 5 * DAY);
    const g = await guest(end);
    const ctx = await contextFor(db, g.principalId, NOW);
    const beyond = await appErrorOf(executeCommand(requestExtension, ctx, { ...chat, until: iso(new Date(NOW.getTime() + 91 * DAY)), reason: "A long sabbatical project." }));
    expect(beyond.fields).toEqual({ until: ["Enter a date at most 90 days from now."] });
    const sooner = await appErrorOf(executeCommand(requestExtension, ctx, { ...chat, until: iso(new Date(end.getTime() - DAY)), reason: "A shorter stay, by mistake." }));
    expect(Object.keys(sooner.fields!)).toEqual(["until"]);
    const bad = await appErrorOf(executeCommand(requestExtension, ctx, { ...chat, until: "next week", reason: "short" }));
    expect(Object.keys(bad.fields!).sort()).toEqual(["reason", "until"]);

    // Granting: never later than asked, never beyond the maximum from the day of the decision.
    const asked = await executeCommand(requestExtension, ctx, { ...chat, until: iso(new Date(NOW.getTime() + 90 * DAY)), reason: "The whole quarter, please." });
    const admin = await contextOf(db, "language-admin", NOW);
    const later = await appErrorOf(executeCommand(grantExtension, admin, { requestId: asked.requestId, until: iso(new Date(NOW.getTime() + 95 * DAY)) }));
    expect(later.fields).toEqual({ until: ["Enter a date no later than the one asked for."] });
    // The sponsor grants less than asked, in the same step.
    const shorter = new Date(NOW.getTime() + 30 * DAY);
    await executeCommand(grantExtension, admin, { requestId: asked.requestId, until: iso(shorter) });
    expect(await grantEnd(g.grantId)).toEqual(shorter);
    expect(await db.select().from(accessExtensionRequests).where(and(eq(accessExtensionRequests.grantId, g.grantId), eq(accessExtensionRequests.status, "pending")))).toEqual([]);
  });

  it("refuses a request granted after the maximum moved past it", async () => {
    const end = new Date(NOW.getTime() + 5 * DAY);
    const g = await guest(end);
    const asked = await executeCommand(requestExtension, await contextFor(db, g.principalId, NOW), { ...chat, until: iso(new Date(NOW.getTime() + 90 * DAY)), reason: "The whole quarter, please." });
    // Decided "in the past" relative to the request: the window of the maximum is measured from the decision, 90 days from then.
    const early = await appErrorOf(executeCommand(grantExtension, await contextOf(db, "language-admin", new Date(NOW.getTime() - 2 * DAY)), { requestId: asked.requestId }));
    expect(early.fields).toEqual({ until: ["Enter a date at most 90 days from now."] });
    expect(await grantEnd(g.grantId)).toEqual(end);
  });

  it("lets only the holder ask and only the tenant's admins answer", async () => {
    const end = new Date(NOW.getTime() + 5 * DAY);
    const g = await guest(end);
    const body = { ...chat, until: iso(new Date(end.getTime() + 5 * DAY)), reason: "Five more days to wrap up." };
    // Another tenant's admin cannot see the project; a member of the tenant without a grant there may not ask.
    expect((await appErrorOf(executeCommand(requestExtension, await contextOf(db, "vision-admin", NOW), body))).code).toBe("not_found");
    expect((await appErrorOf(executeCommand(requestExtension, await contextOf(db, "viewer", NOW), body))).code).toBe("forbidden");
    // A grant that does not expire has nothing to extend.
    const ds = await contextOf(db, "data-scientist", NOW);
    const noEnd = await appErrorOf(executeCommand(requestExtension, ds, { tenant: "vision-lab", project: "detector-training", until: body.until, reason: body.reason }));
    expect(noEnd.code).toBe("conflict");
    // Once expired, the holder can no longer ask (the sponsor invites again).
    expect((await appErrorOf(executeCommand(requestExtension, await contextFor(db, g.principalId, new Date(end.getTime() + 1)), body))).code).toBe("not_found");

    const asked = await executeCommand(requestExtension, await contextFor(db, g.principalId, NOW), body);
    for (const [who, code] of [
      ["vision-admin", "not_found"],
      ["viewer", "forbidden"],
      ["collaborator", "forbidden"],
      ["data-scientist", "not_found"],
    ] as const) {
      expect((await appErrorOf(executeCommand(grantExtension, await contextOf(db, who, NOW), { requestId: asked.requestId }))).code, who).toBe(code);
      expect((await appErrorOf(executeCommand(declineExtension, await contextOf(db, who, NOW), { requestId: asked.requestId }))).code, who).toBe(code);
    }
    // The holder cannot answer their own request either.
    expect((await appErrorOf(executeCommand(grantExtension, await contextFor(db, g.principalId, NOW), { requestId: asked.requestId }))).code).toBe("forbidden");
    expect(await grantEnd(g.grantId)).toEqual(end);
    // A platform admin may.
    await executeCommand(grantExtension, await contextOf(db, "platform-admin", NOW), { requestId: asked.requestId });
    expect(await grantEnd(g.grantId)).toEqual(new Date(end.getTime() + 5 * DAY));
  });
});
