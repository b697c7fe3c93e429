import fs from "node:fs";

/** The time source for decisions (grant expiry, sessions, tokens, audit). One place, so tests can control it. */
export type Clock = () => Date;

/**
 * The wall clock, shifted by the offset in ALLOT_TEST_CLOCK_FILE when that is
 * set. Browser tests use it to move past an expiry instant without sleeping;
 * start-up logs a warning whenever it is on.
 */
export const systemClock: Clock = () => {
  const file = process.env.ALLOT_TEST_CLOCK_FILE;
  if (!file) return new Date();
  let offsetMs = 0;
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as { offsetMs?: unknown };
    offsetMs = Number(parsed.offsetMs) || 0;
  } catch {
    offsetMs = 0; // no file yet: real time
  }
  return new Date(Date.now() + offsetMs);
};
