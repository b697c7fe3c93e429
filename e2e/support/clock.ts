import fs from "node:fs";
import { testClockFile } from "./env";

export const DAY_MS = 86_400_000;

/**
 * Move the portal's clock by `offsetMs` from real time. The server reads the
 * file on every decision (lib/clock.ts), so the next request sees the shift:
 * expiry is tested without sleeping. Written to a temporary file and renamed,
 * so the server never reads half a file.
 */
export function shiftServerClock(offsetMs: number): void {
  const file = testClockFile();
  fs.writeFileSync(`${file}.tmp`, JSON.stringify({ offsetMs }));
  fs.renameSync(`${file}.tmp`, file);
}

/** Back to real time; every journey that shifts the clock calls this after each test. */
export function resetServerClock(): void {
  shiftServerClock(0);
}

/** The UTC calendar day `days` from now, as an <input type="date"> takes it (yyyy-mm-dd). */
export function utcDayFromNow(days: number): string {
  return new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);
}
