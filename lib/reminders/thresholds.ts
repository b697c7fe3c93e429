/**
 * When expiry reminders go out: the one place the thresholds are written.
 * A reminder is due once the time left reaches a threshold; only the nearest
 * due threshold is sent, so a job that was down while two thresholds passed
 * sends one reminder, not a burst of all of them.
 */
export const REMINDER_THRESHOLD_DAYS = [14, 7, 1] as const;
export type ReminderThreshold = (typeof REMINDER_THRESHOLD_DAYS)[number];

const DAY = 86_400_000;

/** The furthest threshold: nothing expiring later than this is looked at. */
export const REMINDER_HORIZON_MS = Math.max(...REMINDER_THRESHOLD_DAYS) * DAY;

/**
 * The threshold whose reminder is due at `now` for something expiring at
 * `expiresAt`: the smallest threshold the time left has reached, or null when
 * none has, or when it has already expired (an expired grant needs no reminder).
 */
export function dueThreshold(expiresAt: Date, now: Date): ReminderThreshold | null {
  const left = expiresAt.getTime() - now.getTime();
  if (left <= 0) return null;
  let due: ReminderThreshold | null = null;
  for (const days of REMINDER_THRESHOLD_DAYS) if (left <= days * DAY && (due === null || days < due)) due = days;
  return due;
}

/** "in 6 days", "in 20 hours", "in 45 minutes": the time left as a reminder says it. */
export function timeLeftWords(expiresAt: Date, now: Date): string {
  const left = Math.max(0, expiresAt.getTime() - now.getTime());
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (left >= 2 * DAY) return `in ${plural(Math.floor(left / DAY), "day")}`;
  if (left >= 3_600_000) return `in ${plural(Math.floor(left / 3_600_000), "hour")}`;
  return `in ${plural(Math.max(1, Math.floor(left / 60_000)), "minute")}`;
}
