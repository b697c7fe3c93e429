import { and, eq, gt, inArray, isNotNull, isNull } from "drizzle-orm";
import type { Database } from "@/db/client";
import { principals, remindersSent, users } from "@/db/schema";
import { config } from "@/lib/config";
import { reportUnexpectedError } from "@/lib/errors";
import type { PeriodicJob } from "@/lib/jobs/periodic";
import { notify, platformAdminIds, tenantAdminIds } from "@/lib/notify/in-app";
import { sendMail, type Mail } from "@/lib/notify/mail";
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
 * transaction: the mails are written with the row (`mail_pending`) and handed
 * to SMTP after its commit, each row under a row lock (FOR UPDATE SKIP
 * LOCKED, so two workers never mail the same one); those the server refuses
 * stay pending and are tried again at the next run, until the subject
 * expires. Only the mail is retried, never the notice or webhook event. A
 * crash between SMTP accepting a mail and the commit that records it would
 * send that mail again: a reminder mailed twice beats one never mailed.
 */

export type SentReminder = { kind: ReminderCandidate["kind"]; id: string; expiresAt: Date; thresholdDays: ReminderThreshold; recipients: string[]; mailed: number };

/** `mailRetried`: mails of earlier runs' reminders that SMTP accepted this time. */
export type ReminderRun = { sent: SentReminder[]; failed: number; mailRetried: number };

type Person = { id: string; email: string };
type Prepared = { sent: SentReminder };

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
    const mailOf = (p: Person, notice: { title: string; body: string; link: string }): Mail => {
      const link = absolute(notice.link);
      return { to: p.email, subject: notice.title, text: `${notice.body}\n${link ? `\n${link}\n` : ""}` };
    };
    const mails = [...(words.holder ? holder.map((p) => mailOf(p, words.holder!)) : []), ...others.map((p) => mailOf(p, words.others))];
    const inserted = await tx
      .insert(remindersSent)
      .values({
        subjectKind: c.kind,
        subjectId: c.id,
        expiresAt: c.expiresAt,
        thresholdDays,
        tenantId: c.tenantId,
        recipients: recipients.map((p) => p.id),
        sentAt: now,
        mailPending: config().smtp && mails.length > 0 ? mails : null,
      })
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

    return { sent: { kind: c.kind, id: c.id, expiresAt: c.expiresAt, thresholdDays, recipients: recipients.map((p) => p.id), mailed: 0 } };
  });
}

/**
 * Hand every pending reminder mail to SMTP, this run's and earlier runs'
 * alike, one reminder at a time under its row lock; what the server refuses
 * stays pending for the next run. Returns how many mails went out, by reminder.
 */
async function deliverPendingMail(db: Database, now: Date): Promise<Map<string, number>> {
  const mailed = new Map<string, number>();
  if (!config().smtp) return mailed;
  const pending = await db
    .select({ kind: remindersSent.subjectKind, id: remindersSent.subjectId, expiresAt: remindersSent.expiresAt, days: remindersSent.thresholdDays })
    .from(remindersSent)
    .where(and(isNotNull(remindersSent.mailPending), gt(remindersSent.expiresAt, now)));
  for (const r of pending) {
    const key = and(eq(remindersSent.subjectKind, r.kind), eq(remindersSent.subjectId, r.id), eq(remindersSent.expiresAt, r.expiresAt), eq(remindersSent.thresholdDays, r.days));
    const sent = await db.transaction(async (tx) => {
      const [row] = await tx.select({ mails: remindersSent.mailPending }).from(remindersSent).where(and(key, isNotNull(remindersSent.mailPending))).for("update", { skipLocked: true });
      if (!row?.mails) return 0; // another worker holds it, or has just sent it
      const refused: Mail[] = [];
      for (const mail of row.mails) if (!(await sendMail(mail))) refused.push(mail);
      const done = refused.length === 0;
      await tx.update(remindersSent).set({ mailPending: done ? null : refused, ...(done ? { mailedAt: now } : {}) }).where(key);
      return row.mails.length - refused.length;
    });
    mailed.set(keyOf(r.kind, r.id, r.expiresAt, r.days), sent);
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
  const run: ReminderRun = { sent: [], failed: 0, mailRetried: 0 };
  // Read what was sent already in one query, so a run with nothing new writes nothing.
  const already = due.length === 0 ? [] : await db
    .select({ kind: remindersSent.subjectKind, id: remindersSent.subjectId, expiresAt: remindersSent.expiresAt, days: remindersSent.thresholdDays })
    .from(remindersSent)
    .where(and(inArray(remindersSent.subjectId, due.map((d) => d.c.id)), gt(remindersSent.expiresAt, now)));
  const sentKeys = new Set(already.map((r) => keyOf(r.kind, r.id, r.expiresAt, r.days)));
  for (const { c, days } of due) {
    if (sentKeys.has(keyOf(c.kind, c.id, c.expiresAt, days))) continue;
    try {
      const prepared = await sendOne(db, c, days, now);
      if (prepared) run.sent.push(prepared.sent);
    } catch (error) {
      run.failed++;
      reportUnexpectedError(error, `expiry reminder for ${c.kind} ${c.id}`);
    }
  }
  const mailed = await deliverPendingMail(db, now);
  for (const sent of run.sent) {
    const key = keyOf(sent.kind, sent.id, sent.expiresAt, sent.thresholdDays);
    sent.mailed = mailed.get(key) ?? 0;
    mailed.delete(key);
  }
  for (const n of mailed.values()) run.mailRetried += n;
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
      return r.sent.length + r.failed + r.mailRetried > 0 ? `${r.sent.length} sent${r.failed ? `, ${r.failed} failed` : ""}${r.mailRetried ? `, ${r.mailRetried} mails retried` : ""}` : null;
    },
  };
}
