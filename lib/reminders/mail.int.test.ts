import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notifications, remindersSent, webhookDeliveries } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import { personaEmail } from "@/test/fixtures";
import { freshTestDatabase } from "@/test/database";
import { startSmtpServer, unwrapBody } from "@/test/smtp";
import { sendExpiryReminders } from "./send";

/**
 * Reminders are mailed when SMTP_URL is set: a real SMTP server on loopback
 * receives one mail per person told, with the absolute link, once.
 */
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
const SEEDED = new Date("2026-12-01T08:00:00.000Z");
const END = new Date("2027-01-30T08:00:00.000Z"); // the demo collaborator's end

beforeAll(async () => {
  smtp = await startSmtpServer();
  handle = await freshTestDatabase();
  await seedDemoData(handle.db, SEEDED);
});

afterAll(async () => {
  await handle.close();
  await smtp.close();
});

describe("reminder mail", () => {
  it("mails the collaborator the way to ask for more time and the sponsor the collaborators page, once", async () => {
    const now = new Date(END.getTime() - 6 * 86_400_000);
    const run = await sendExpiryReminders(handle.db, now);
    expect(run.sent.map((s) => [s.thresholdDays, s.mailed])).toEqual([[7, 2]]);
    await sendExpiryReminders(handle.db, new Date(now.getTime() + 3_600_000));
    expect(smtp.received).toHaveLength(2);
    const byTo = Object.fromEntries(smtp.received.map((m) => [m.to.join(","), unwrapBody(m.body)]));
    expect(Object.keys(byTo).sort()).toEqual([personaEmail("collaborator"), personaEmail("language-admin")].sort());
    const cleo = byTo[personaEmail("collaborator")]!;
    expect(cleo).toContain("Subject: Your access to Chat evaluation ends in 6 days");
    expect(cleo).toContain("https://allot.example.test/tenants/language-models/projects/chat-eval/extension");
    const sponsor = byTo[personaEmail("language-admin")]!;
    expect(sponsor).toContain("Subject: Cleo Park's access to Chat evaluation ends in 6 days");
    expect(sponsor).toContain("https://allot.example.test/tenants/language-models/collaborators");
    const [row] = await handle.db.select().from(remindersSent).where(eq(remindersSent.thresholdDays, 7));
    expect(row!.mailedAt).toEqual(now);
  });

  it("retries mail the SMTP server refused at the next run, without a second notice or webhook event, and stops once it is accepted", async () => {
    const now = new Date(END.getTime() - 12 * 3_600_000); // the 1-day reminder
    const mailsBefore = smtp.received.length;
    const counts = async () => ({
      notices: (await handle.db.select({ n: count() }).from(notifications))[0]!.n,
      webhooks: (await handle.db.select({ n: count() }).from(webhookDeliveries))[0]!.n,
    });
    smtp.setFailing(true);
    const failed = await sendExpiryReminders(handle.db, now);
    expect(failed.sent.map((s) => [s.thresholdDays, s.mailed])).toEqual([[1, 0]]);
    expect(smtp.received).toHaveLength(mailsBefore);
    const [pending] = await handle.db.select().from(remindersSent).where(eq(remindersSent.thresholdDays, 1));
    expect(pending!.mailPending!.map((m) => m.to).sort()).toEqual([personaEmail("collaborator"), personaEmail("language-admin")].sort());
    expect(pending!.mailedAt).toBeNull();
    const told = await counts();

    // Still down at the next run: still pending, nothing else written again.
    expect(await sendExpiryReminders(handle.db, new Date(now.getTime() + 600_000))).toMatchObject({ sent: [], mailRetried: 0 });

    smtp.setFailing(false);
    const later = new Date(now.getTime() + 3_600_000);
    expect(await sendExpiryReminders(handle.db, later)).toMatchObject({ sent: [], failed: 0, mailRetried: 2 });
    expect(smtp.received.slice(mailsBefore).map((m) => m.to.join(",")).sort()).toEqual([personaEmail("collaborator"), personaEmail("language-admin")].sort());
    expect(await counts()).toEqual(told);
    const [delivered] = await handle.db.select().from(remindersSent).where(eq(remindersSent.thresholdDays, 1));
    expect(delivered).toMatchObject({ mailPending: null, mailedAt: later });

    // Accepted once: a later run mails nothing more.
    expect(await sendExpiryReminders(handle.db, new Date(later.getTime() + 600_000))).toMatchObject({ mailRetried: 0 });
    expect(smtp.received).toHaveLength(mailsBefore + 2);
  });
});
