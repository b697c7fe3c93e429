import { eq } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { remindersSent } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import { personaEmail } from "@/test/fixtures";
import { freshTestDatabase } from "@/test/database";
import { sendExpiryReminders } from "./send";

/**
 * Reminders are mailed when SMTP_URL is set: a real SMTP server on loopback
 * receives one mail per person told, with the absolute link, once.
 */
type Received = { to: string[]; body: string };
const received: Received[] = [];
let server: SMTPServer;
let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
const SEEDED = new Date("2026-12-01T08:00:00.000Z");
const END = new Date("2027-01-30T08:00:00.000Z"); // the demo collaborator's end

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), body: Buffer.concat(chunks).toString("utf8") });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.env.SMTP_URL = `smtp://127.0.0.1:${port}`;
  process.env.SMTP_FROM = "Allot <allot@example.test>";
  process.env.AUTH_URL = "https://allot.example.test";
  handle = await freshTestDatabase();
  await seedDemoData(handle.db, SEEDED);
});

afterAll(async () => {
  await handle.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("reminder mail", () => {
  it("mails the collaborator the way to ask for more time and the sponsor the collaborators page, once", async () => {
    const now = new Date(END.getTime() - 6 * 86_400_000);
    const run = await sendExpiryReminders(handle.db, now);
    expect(run.sent.map((s) => [s.thresholdDays, s.mailed])).toEqual([[7, 2]]);
    await sendExpiryReminders(handle.db, new Date(now.getTime() + 3_600_000));
    expect(received).toHaveLength(2);
    const unwrap = (b: string) => b.replace(/=\r?\n/g, "");
    const byTo = Object.fromEntries(received.map((m) => [m.to.join(","), unwrap(m.body)]));
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
});
