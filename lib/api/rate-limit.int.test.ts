import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/db/client";
import { authFailureCounts } from "@/db/schema";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { addressRetryAfter, FAILURE_LIMITS, prefixRetryAfter, recordAuthFailure, WINDOW_SECONDS } from "./rate-limit";

/**
 * The failure counts are the database's, not a process's: what one replica
 * records, another reads, and concurrent failures are each counted once. On
 * PostgreSQL the second "replica" is a second connection pool; on PGlite (one
 * process by nature) the same handle.
 */

let first: DatabaseHandle & { target: Parameters<typeof openDatabase>[0] };
let second: DatabaseHandle;

beforeAll(async () => {
  first = await freshTestDatabase();
  second = first.target.kind === "postgres" ? openDatabase(first.target) : first;
});

afterAll(async () => {
  if (second !== first) await second.close();
  await first.close();
});

const T0 = new Date("2026-03-01T10:00:00Z");
const after = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe(`failed authentications are counted in the database (${databaseLabel()})`, () => {
  it("blocks an address on every replica once the failures across replicas reach the limit", async () => {
    for (let i = 0; i < FAILURE_LIMITS.perAddress; i++) {
      await recordAuthFailure(i % 2 === 0 ? first.db : second.db, "198.51.100.7", null, after(i));
    }
    // The count is a row every replica reads, not a process's memory.
    const stored = await second.db.select().from(authFailureCounts);
    expect(stored).toEqual([{ key: "ip:198.51.100.7", windowStartedAt: T0, failures: FAILURE_LIMITS.perAddress }]);
    expect(await addressRetryAfter(first.db, "198.51.100.7", after(30))).toBe(WINDOW_SECONDS - 30);
    expect(await addressRetryAfter(second.db, "198.51.100.7", after(30))).toBe(WINDOW_SECONDS - 30);
    expect(await addressRetryAfter(second.db, "198.51.100.8", after(30))).toBe(0);
  });

  it("counts concurrent failures from both replicas exactly once each", async () => {
    await Promise.all(
      Array.from({ length: FAILURE_LIMITS.perPrefix - 1 }, (_, i) => recordAuthFailure(i % 2 === 0 ? first.db : second.db, `203.0.113.${i}`, "abcdef123456", T0)),
    );
    expect(await prefixRetryAfter(first.db, "abcdef123456", T0)).toBe(0);
    await recordAuthFailure(second.db, "203.0.113.200", "abcdef123456", T0);
    expect(await prefixRetryAfter(first.db, "abcdef123456", T0)).toBe(WINDOW_SECONDS);
  });

  it("starts a new window after the old one ends, and removes windows that ended", async () => {
    await recordAuthFailure(first.db, "192.0.2.1", null, T0);
    await recordAuthFailure(first.db, "192.0.2.1", null, after(WINDOW_SECONDS + 1));
    const rows = await first.db.select().from(authFailureCounts);
    const row = rows.find((r) => r.key === "ip:192.0.2.1");
    expect(row).toMatchObject({ failures: 1, windowStartedAt: after(WINDOW_SECONDS + 1) });
    // The earlier tests' windows (started at T0..T0+19 s) ended more than a window ago.
    expect(rows.map((r) => r.key)).toEqual(["ip:192.0.2.1"]);
    expect(await addressRetryAfter(first.db, "198.51.100.7", after(WINDOW_SECONDS + 1))).toBe(0);
  });
});
