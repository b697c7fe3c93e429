import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoData } from "@/db/seed";
import { executeCommand } from "@/lib/auth/command";
import { inviteMember } from "@/lib/tenancy/commands/members";
import { contextOf } from "@/test/fixtures";
import { freshTestDatabase } from "@/test/database";
import { startSmtpServer, unwrapBody } from "@/test/smtp";

/**
 * Invitations are mailed when SMTP_URL is set: a real SMTP server on loopback
 * receives the message, and its link carries the same single-use token the
 * command returned.
 */
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
const NOW = new Date("2026-12-02T12:00:00Z");

beforeAll(async () => {
  smtp = await startSmtpServer();
  handle = await freshTestDatabase();
  await seedDemoData(handle.db, NOW);
});

afterAll(async () => {
  await handle.close();
  await smtp.close();
});

describe("invitation mail", () => {
  it("mails the single-use link to the invitee when SMTP is configured", async () => {
    const ctx = await contextOf(handle.db, "vision-admin", NOW);
    const result = await executeCommand(inviteMember, ctx, { tenant: "vision-lab", email: "New.Person@Example.com", role: "viewer" });
    expect(result.mailed).toBe(true);
    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0]!;
    expect(mail.to).toEqual(["new.person@example.com"]);
    expect(mail.from).toBe("allot@example.test");
    expect(mail.body).toContain("Vision Lab");
    const body = unwrapBody(mail.body);
    expect(body).toContain(`https://allot.example.test/invite/${result.token}`);
  });
});
