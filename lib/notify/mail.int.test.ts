import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoData } from "@/db/seed";
import { executeCommand } from "@/lib/auth/command";
import { inviteMember } from "@/lib/tenancy/commands/members";
import { contextOf } from "@/test/fixtures";
import { freshTestDatabase } from "@/test/database";

/**
 * Invitations are mailed when SMTP_URL is set: a real SMTP server on loopback
 * receives the message, and its link carries the same single-use token the
 * command returned.
 */
type Received = { from: string; to: string[]; body: string };
const received: Received[] = [];
let server: SMTPServer;
let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
const NOW = new Date("2026-12-02T12:00:00Z");

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          body: Buffer.concat(chunks).toString("utf8"),
        });
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
  await seedDemoData(handle.db, NOW);
});

afterAll(async () => {
  await handle.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("invitation mail", () => {
  it("mails the single-use link to the invitee when SMTP is configured", async () => {
    const ctx = await contextOf(handle.db, "vision-admin", NOW);
    const result = await executeCommand(inviteMember, ctx, { tenant: "vision-lab", email: "New.Person@Example.com", role: "viewer" });
    expect(result.mailed).toBe(true);
    expect(received).toHaveLength(1);
    const mail = received[0]!;
    expect(mail.to).toEqual(["new.person@example.com"]);
    expect(mail.from).toBe("allot@example.test");
    expect(mail.body).toContain("Vision Lab");
    // Quoted-printable may wrap long lines with "=\r\n"; unwrap before looking for the link.
    const body = mail.body.replace(/=\r?\n/g, "");
    expect(body).toContain(`https://allot.example.test/invite/${result.token}`);
  });
});
