import { SMTPServer } from "smtp-server";

export type ReceivedMail = { from: string; to: string[]; body: string };

/**
 * A real SMTP server on loopback for mail tests, with the portal's SMTP
 * settings pointed at it (SMTP_URL, SMTP_FROM, and AUTH_URL for absolute
 * links). `failing = true` makes it refuse every mail with a temporary error
 * (451), as a server that is down for a while does.
 */
export async function startSmtpServer() {
  const received: ReceivedMail[] = [];
  const state = { failing: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onMailFrom(_address, _session, callback) {
      if (state.failing) callback(Object.assign(new Error("Try again later"), { responseCode: 451 }));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((r) => r.address), body: Buffer.concat(chunks).toString("utf8") });
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
  return {
    received,
    /** Refuse (true) or accept (false) the mails that follow. */
    setFailing(failing: boolean) {
      state.failing = failing;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A mail's body with quoted-printable soft line breaks ("=\r\n") removed, so long links read whole. */
export const unwrapBody = (body: string) => body.replace(/=\r?\n/g, "");
