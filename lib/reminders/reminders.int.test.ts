import { and, asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/db/client";
import type { Database } from "@/db/client";
import { apiTokens, federationTrusts, notifications, principals, projectGrants, remindersSent, serviceAccounts, users, webhookDeliveries, webhooks } from "@/db/schema";
import { newApiToken } from "@/lib/auth/api-token";
import { databaseLabel } from "@/test/database";
import { personaEmail, principalIdOf } from "@/test/fixtures";
import { addGrant, DAY, HOUR, projectIdOf, seededDatabase, uniqueEmail, userWithEmail } from "@/test/tenancy";
import { sendExpiryReminders } from "./send";

/**
 * Expiry reminders against a real database: the threshold chosen, who is told,
 * the webhook payload, and each reminder sent exactly once however many
 * workers run at once (on PostgreSQL each worker on its own connections).
 */
const SEEDED = new Date("2026-12-01T08:00:00.000Z");
const seeded = seededDatabase(SEEDED);
let db: Database;
let chatEval: string;
let languageAdmin: string;
let visionAdmin: string;

beforeAll(async () => {
  db = seeded.db;
  chatEval = await projectIdOf(db, "language-models", "chat-eval");
  languageAdmin = await principalIdOf(db, personaEmail("language-admin"));
  visionAdmin = await principalIdOf(db, personaEmail("vision-admin"));
  await db.insert(webhooks).values({ url: "http://127.0.0.1:9/hook", secret: "s", events: ["access.expiring"], createdAt: SEEDED });
});

async function collaborator(expiresAt: Date): Promise<{ principalId: string; grantId: string }> {
  const principalId = await userWithEmail(db, uniqueEmail("guest"), SEEDED);
  const grantId = await addGrant(db, { projectId: chatEval, principalId, role: "member", expiresAt, grantedBy: languageAdmin, createdAt: SEEDED });
  return { principalId, grantId };
}

const sentFor = (id: string) => db.select().from(remindersSent).where(eq(remindersSent.subjectId, id)).orderBy(asc(remindersSent.sentAt));
const noticesOf = (principalId: string) => db.select().from(notifications).where(and(eq(notifications.principalId, principalId), eq(notifications.kind, "access.expiring"))).orderBy(asc(notifications.createdAt));
const deliveriesAbout = async (id: string) => (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.event, "access.expiring"))).filter((d) => d.payload.id === id);

describe(`expiry reminders (${databaseLabel()})`, () => {
  it("sends the 14-day reminder once, then only the nearest threshold after a gap", async () => {
    const end = new Date("2027-02-01T12:00:00.000Z");
    const { principalId, grantId } = await collaborator(end);
    // 20 days ahead: too early.
    await sendExpiryReminders(db, new Date(end.getTime() - 20 * DAY));
    expect(await sentFor(grantId)).toEqual([]);

    const t14 = new Date(end.getTime() - 13 * DAY);
    const first = await sendExpiryReminders(db, t14);
    expect(first.sent.filter((s) => s.id === grantId).map((s) => s.thresholdDays)).toEqual([14]);
    await sendExpiryReminders(db, new Date(t14.getTime() + HOUR));
    // The job was down from 13 days to 20 hours before the end: the 1-day reminder alone, not the 7-day one as well.
    const late = new Date(end.getTime() - 20 * HOUR);
    const second = await sendExpiryReminders(db, late);
    expect(second.sent.filter((s) => s.id === grantId).map((s) => s.thresholdDays)).toEqual([1]);
    await sendExpiryReminders(db, new Date(late.getTime() + HOUR));
    expect((await sentFor(grantId)).map((r) => r.thresholdDays)).toEqual([14, 1]);

    const mine = await noticesOf(principalId);
    expect(mine.map((n) => n.title)).toEqual(["Your access to Chat evaluation ends in 13 days", "Your access to Chat evaluation ends in 20 hours"]);
    expect(mine[0]!.link).toBe("/tenants/language-models/projects/chat-eval/extension");
    // The sponsor is also the tenant's admin: told once per reminder, with the collaborators page.
    const [holder] = await db.select({ name: principals.displayName }).from(principals).where(eq(principals.id, principalId));
    const sponsorNotices = (await noticesOf(languageAdmin)).filter((n) => n.title.startsWith(`${holder!.name}'s access`));
    expect(sponsorNotices.map((n) => [n.title, n.link])).toEqual([
      [`${holder!.name}'s access to Chat evaluation ends in 13 days`, "/tenants/language-models/collaborators"],
      [`${holder!.name}'s access to Chat evaluation ends in 20 hours`, "/tenants/language-models/collaborators"],
    ]);
    expect((await sentFor(grantId))[0]!.recipients.sort()).toEqual([principalId, languageAdmin].sort());
  });

  it("sends nothing for an expired grant and nothing to a disabled holder", async () => {
    const end = new Date("2027-03-01T00:00:00.000Z");
    const { principalId, grantId } = await collaborator(end);
    await sendExpiryReminders(db, new Date(end.getTime() + 1));
    expect(await sentFor(grantId)).toEqual([]);
    await db.update(principals).set({ disabledAt: SEEDED }).where(eq(principals.id, principalId));
    await sendExpiryReminders(db, new Date(end.getTime() - 3 * DAY));
    expect(await sentFor(grantId)).toEqual([]);
  });

  it("describes the reminder in the webhook payload", async () => {
    const end = new Date("2027-04-10T00:00:00.000Z");
    const { principalId, grantId } = await collaborator(end);
    const [p] = await db.select({ name: principals.displayName, email: users.email }).from(principals).innerJoin(users, eq(users.principalId, principals.id)).where(eq(principals.id, principalId));
    await sendExpiryReminders(db, new Date(end.getTime() - 6 * DAY));
    const [delivery] = await deliveriesAbout(grantId);
    const email = p!.email;
    expect(delivery!.payload).toEqual({
      event: "access.expiring",
      text: `${p!.name} (${email})'s access to language-models/chat-eval (external collaborator) ends in 6 days, at 10 Apr 2027, 00:00 UTC.`,
      subject: "collaborator",
      id: grantId,
      tenant: "language-models",
      project: "chat-eval",
      principal: email,
      expiresAt: "2027-04-10T00:00:00.000Z",
      thresholdDays: 7,
      link: "/tenants/language-models/collaborators",
    });
  });

  it("reminds a token's maker and its tenant's admins, unless it is revoked, exchanged or outlived by another token", async () => {
    const [sa] = await db.insert(principals).values({ kind: "service_account", displayName: "nightly-eval", createdAt: SEEDED }).returning();
    await db.insert(serviceAccounts).values({ principalId: sa!.id, tenantId: seeded.tenantId["vision-lab"]!, name: "nightly-eval", createdBy: visionAdmin });
    const accountName = { name: "nightly-eval" };
    const account = sa!.id;
    const end = new Date("2027-05-01T00:00:00.000Z");
    const token = async (expiresAt: Date | null, extra: Partial<typeof apiTokens.$inferInsert> = {}) => {
      const { prefix, hash } = newApiToken();
      const [row] = await db.insert(apiTokens).values({ serviceAccountId: account, prefix, hash, expiresAt, createdAt: SEEDED, createdBy: visionAdmin, ...extra }).returning();
      return row!;
    };
    const revoked = await token(end, { revokedAt: SEEDED });
    const [trust] = await db
      .insert(federationTrusts)
      .values({ serviceAccountId: account, name: "ci", issuer: "https://ci.example.test", audience: "allot", subjectPattern: "repo:*", createdAt: SEEDED })
      .returning();
    const exchanged = await token(end, { federationTrustId: trust!.id });
    const last = await token(end);
    const now = new Date(end.getTime() - 2 * DAY);
    const run = await sendExpiryReminders(db, now);
    expect(run.sent.filter((s) => s.kind === "api_token").map((s) => [s.id, s.thresholdDays])).toEqual([[last.id, 7]]);
    expect(await sentFor(revoked.id)).toEqual([]);
    expect(await sentFor(exchanged.id)).toEqual([]);
    const notice = (await db.select().from(notifications).where(eq(notifications.principalId, visionAdmin))).find((n) => n.title.startsWith(`Token ${last.prefix}`));
    expect(notice).toMatchObject({ title: `Token ${last.prefix} of ${accountName.name} expires in 2 days`, link: `/tenants/vision-lab/service-accounts/${accountName.name}` });
    const [delivery] = await deliveriesAbout(last.id);
    expect(delivery!.payload).toMatchObject({ subject: "api_token", tenant: "vision-lab", serviceAccount: accountName.name, tokenPrefix: last.prefix, thresholdDays: 7, expiresAt: end.toISOString() });

    // A successor that lasts longer (a rotation) makes the old token's end harmless: no reminder.
    const end2 = new Date("2027-06-01T00:00:00.000Z");
    const rotated = await token(end2);
    await token(new Date(end2.getTime() + 30 * DAY));
    await sendExpiryReminders(db, new Date(end2.getTime() - 2 * DAY));
    expect(await sentFor(rotated.id)).toEqual([]);
  });

  it("sends each reminder exactly once when 8 workers run at the same instant", async () => {
    const end = new Date("2027-07-01T00:00:00.000Z");
    const grants = await Promise.all([0, 1, 2, 3, 4].map(() => collaborator(end)));
    const now = new Date(end.getTime() - 10 * DAY);
    // On PostgreSQL each worker has its own connection pool, as replicas do; PGlite is one session.
    const extra: DatabaseHandle[] = seeded.handle.target.kind === "postgres" ? Array.from({ length: 8 }, () => openDatabase(seeded.handle.target)) : [];
    try {
      const workers = extra.length ? extra.map((h) => h.db) : Array.from({ length: 8 }, () => db);
      const runs = await Promise.all(workers.map((w) => sendExpiryReminders(w, now)));
      expect(runs.reduce((n, r) => n + r.failed, 0)).toBe(0);
      const sentIds = runs.flatMap((r) => r.sent.map((s) => s.id)).filter((id) => grants.some((g) => g.grantId === id));
      expect(sentIds.sort()).toEqual(grants.map((g) => g.grantId).sort());
      for (const g of grants) {
        expect(await sentFor(g.grantId)).toHaveLength(1);
        expect(await noticesOf(g.principalId)).toHaveLength(1);
        expect(await deliveriesAbout(g.grantId)).toHaveLength(1);
      }
    } finally {
      await Promise.all(extra.map((h) => h.close()));
    }
  });

  it("gives a moved expiry its own reminders", async () => {
    const end = new Date("2027-08-01T00:00:00.000Z");
    const { principalId, grantId } = await collaborator(end);
    await sendExpiryReminders(db, new Date(end.getTime() - 5 * DAY));
    const later = new Date(end.getTime() + 20 * DAY);
    await db.update(projectGrants).set({ expiresAt: later }).where(eq(projectGrants.id, grantId));
    // The old instant's 1-day threshold passes: nothing, the grant no longer ends then.
    await sendExpiryReminders(db, new Date(end.getTime() - 12 * HOUR));
    await sendExpiryReminders(db, new Date(later.getTime() - 13 * DAY));
    expect((await sentFor(grantId)).map((r) => [r.expiresAt.toISOString(), r.thresholdDays])).toEqual([
      [end.toISOString(), 7],
      [later.toISOString(), 14],
    ]);
    expect(await noticesOf(principalId)).toHaveLength(2);
  });
});

