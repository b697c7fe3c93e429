import { and, eq, gt, inArray, isNull } from "drizzle-orm";
import type { Database } from "@/db/client";
import { principals, remindersSent, users } from "@/db/schema";
import { config } from "@/lib/config";
import { reportUnexpectedError } from "@/lib/errors";
import type { PeriodicJob } from "@/lib/jobs/periodic";
import { notify, platformAdminIds, tenantAdminIds } from "@/lib/notify/in-app";
import { sendMail } from "@/lib/notify/mail";
import { enqueueWebhookEvent } from "@/lib/notify/webhooks";
import { expiringGrants, expiringTokens, type ReminderCandidate } from "./candidates";
import { reminderWords } from "./messages";
import { dueThreshold, type ReminderThreshold } from "./thresholds";

/**
 * Expiry reminders (thresholds in thresholds.ts) for project grants and
 * service-account tokens: in the portal, by mail when SMTP is set, and as the
 * webhook event "access.expiring".
 *
 * Exactly once per (subject, expiry instant, threshold): the row in
 * reminders_sent is inserted with ON CONFLICT DO NOTHING in the transaction
 * that writes the notices and webhook deliveries, so only the worker whose
 * insert happened writes them; any number of workers may run this at once, as
 * often as wanted, and a restart sends nothing twice. Mail cannot join a
 * transaction: the worker that inserted the row mails after its commit and
 * records when (`mailed_at`); a crash in between loses that mail rather than
 * sending it twice.
 */

export type SentReminder = { kind: ReminderCandidate["kind"]; id: string; expiresAt: Date; thresholdDays: ReminderThreshold; recipients: string[]; mailed: number };

export type ReminderRun = { sent: SentReminder[]; failed: number };

type Person = { id: string; email: string };
type Prepared = { sent: SentReminder; mails: { to: string; subject: string; text: string }[] };

const keyOf = (kind: string, id: string, expiresAt: Date, days: number) => `${kind}|${id}|${expiresAt.toISOString()}|${days}`;

function absolute(path: string): string | null {
  const base = config().publicUrl;
  return base ? new URL(path, base).toString() : null;
}

/** The people among these principals who can read a notice: enabled users (service accounts have no inbox). */
async function people(db: Database, ids: readonly (string | null)[]): Promise<Person[]> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))];
  if (wanted.length === 0) return [];
  const rows = await db
    .select({ id: users.principalId, email: users.email })
    .from(users)
    .innerJoin(principals, eq(principals.id, users.principalId))
    .where(and(inArray(users.principalId, wanted), isNull(principals.disabledAt)));
  return wanted.flatMap((id) => rows.filter((r) => r.id === id));
}

/** Those who can act on it: for a grant its sponsor and the tenant admins; for a token its maker and the admins of the account's tenant (the platform's for a platform account). */
async function deciders(db: Database, c: ReminderCandidate): Promise<(string | null)[]> {
  if (c.kind === "project_grant") return [c.grantedBy, ...(await tenantAdminIds(db, c.tenantId))];
  return [c.createdBy, ...(c.tenantId ? await tenantAdminIds(db, c.tenantId) : await platformAdminIds(db))];
}

async function sendOne(db: Database, c: ReminderCandidate, thresholdDays: ReminderThreshold, now: Date): Promise<Prepared | null> {
  return db.transaction(async (tx) => {
    const words = reminderWords(c, now);
    const holder = c.kind === "project_grant" && words.holder ? await people(tx, [c.holderId]) : [];
    const others = (await people(tx, await deciders(tx, c))).filter((p) => !holder.some((h) => h.id === p.id));
    const recipients = [...holder, ...others];
    const inserted = await tx
      .insert(remindersSent)
      .values({ subjectKind: c.kind, subjectId: c.id, expiresAt: c.expiresAt, thresholdDays, tenantId: c.tenantId, recipients: recipients.map((p) => p.id), sentAt: now })
      .onConflictDoNothing()
      .returning({ id: remindersSent.subjectId });
    // Another worker sent it (or is sending it, and this insert waited for its commit).
    if (inserted.length === 0) return null;

    if (words.holder) await notify(tx, holder.map((p) => p.id), { kind: "access.expiring", ...words.holder }, now);
    await notify(tx, others.map((p) => p.id), { kind: "access.expiring", ...words.others }, now);
    const subject = c.kind === "api_token" ? "api_token" : c.collaborator ? "collaborator" : "project_grant";
    const url = absolute(words.others.link);
    await enqueueWebhookEvent(
      tx,
      "access.expiring",
      {
        text: url ? `${words.text} ${url}` : words.text,
        subject,
        id: c.id,
        tenant: c.tenantSlug,
        ...(c.kind === "project_grant"
          ? { project: c.projectSlug, principal: c.holderEmail ?? c.holderName }
          : { serviceAccount: c.serviceAccountName, tokenPrefix: c.prefix }),
        expiresAt: c.expiresAt.toISOString(),
        thresholdDays,
        link: words.others.link,
      },
      now,
    );

    const mailOf = (p: Person, notice: { title: string; body: string; link: string }) => {
      const link = absolute(notice.link);
      return { to: p.email, subject: notice.title, text: `${notice.body}\n${link ? `\n${link}\n` : ""}` };
    };
    const mails = [...(words.holder ? holder.map((p) => mailOf(p, words.holder!)) : []), ...others.map((p) => mailOf(p, words.others))];
    return { sent: { kind: c.kind, id: c.id, expiresAt: c.expiresAt, thresholdDays, recipients: recipients.map((p) => p.id), mailed: 0 }, mails };
  });
}

/** Hand the mails of a reminder this worker committed to SMTP, and record that it did. */
async function mailReminder(db: Database, p: Prepared, now: Date): Promise<number> {
  if (!config().smtp || p.mails.length === 0) return 0;
  let mailed = 0;
  for (const mail of p.mails) if (await sendMail(mail)) mailed++;
  if (mailed > 0) {
    const s = p.sent;
    await db
      .update(remindersSent)
      .set({ mailedAt: now })
      .where(and(eq(remindersSent.subjectKind, s.kind), eq(remindersSent.subjectId, s.id), eq(remindersSent.expiresAt, s.expiresAt), eq(remindersSent.thresholdDays, s.thresholdDays)));
  }
  return mailed;
}

/**
 * Send every reminder due at `now` that was not sent yet: for each subject
 * only the nearest threshold reached (dueThreshold). One subject's failure is
 * logged and does not stop the others; it is tried again at the next run.
 */
export async function sendExpiryReminders(db: Database, now: Date): Promise<ReminderRun> {
  const candidates: ReminderCandidate[] = [...(await expiringGrants(db, now)), ...(await expiringTokens(db, now))];
  const due = candidates.flatMap((c) => {
    const days = dueThreshold(c.expiresAt, now);
    return days === null ? [] : [{ c, days }];
  });
  const run: ReminderRun = { sent: [], failed: 0 };
  if (due.length === 0) return run;
  // Read what was sent already in one query, so a run with nothing new writes nothing.
  const already = await db
    .select({ kind: remindersSent.subjectKind, id: remindersSent.subjectId, expiresAt: remindersSent.expiresAt, days: remindersSent.thresholdDays })
    .from(remindersSent)
    .where(and(inArray(remindersSent.subjectId, due.map((d) => d.c.id)), gt(remindersSent.expiresAt, now)));
  const sentKeys = new Set(already.map((r) => keyOf(r.kind, r.id, r.expiresAt, r.days)));
  for (const { c, days } of due) {
    if (sentKeys.has(keyOf(c.kind, c.id, c.expiresAt, days))) continue;
    try {
      const prepared = await sendOne(db, c, days, now);
      if (!prepared) continue;
      prepared.sent.mailed = await mailReminder(db, prepared, now);
      run.sent.push(prepared.sent);
    } catch (error) {
      run.failed++;
      reportUnexpectedError(error, `expiry reminder for ${c.kind} ${c.id}`);
    }
  }
  return run;
}

/** Thresholds are days apart: every ten minutes is prompt enough, and a run with nothing due reads two small ranges. */
export function expiryRemindersJob(db: Database): PeriodicJob {
  return {
    name: "expiry reminders",
    everyMs: 10 * 60_000,
    phase: "after-reconcile",
    async run(now) {
      const r = await sendExpiryReminders(db, now);
      return r.sent.length + r.failed > 0 ? `${r.sent.length} sent${r.failed ? `, ${r.failed} failed` : ""}` : null;
    },
  };
}
