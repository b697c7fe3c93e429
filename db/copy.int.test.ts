import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseLabel, emptyTestDatabase } from "@/test/database";
import type { DatabaseHandle } from "./client";
import { arrayLiteral, copyRows } from "./copy";
import { rowsOf } from "./rows";

/**
 * COPY and array literals on the database in use: text that needs escaping
 * arrives as sent, nulls stay null, and an error the server raises at the end
 * of a COPY (a duplicate key) rejects the call, rolling its transaction back,
 * instead of leaving it waiting (postgres.js reports that error elsewhere).
 */
let handle: DatabaseHandle;
const NASTY = ['tab\there', "line\nbreak", "back\\slash", 'quote"d', "comma,brace{}", "carriage\rreturn", "plain", ""];

beforeAll(async () => {
  handle = await emptyTestDatabase();
  await handle.db.execute(sql`create table copy_probe (id int primary key, label text, amount float8, at timestamptz)`);
});
afterAll(async () => {
  await handle.close();
});

const probe = () => rowsOf<{ id: number; label: string | null; amount: number | null; at: string | null }>(handle.db, sql`select id, label, amount, to_char(at at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as at from copy_probe order by id`);

describe(`copyRows and arrayLiteral (${databaseLabel()})`, () => {
  it("copies rows inside a transaction, escapes and nulls included", async () => {
    await handle.db.transaction(async (tx) => {
      await copyRows(tx, "copy_probe", ["id", "label", "amount", "at"], [
        ...NASTY.map((label, i) => [i + 1, label, i / 3, "2026-03-01T10:00:00.000Z"]),
        [100, null, null, null],
      ]);
    });
    const rows = await probe();
    expect(rows.map((r) => r.label)).toEqual([...NASTY, null]);
    expect(rows.map((r) => (r.amount === null ? null : Number(r.amount)))).toEqual([...NASTY.map((_, i) => i / 3), null]);
    expect(rows[0]!.at).toBe("2026-03-01 10:00");
    expect(rows.at(-1)!.at).toBeNull();
  });

  it("a duplicate key at the end of a COPY rejects the call and rolls its transaction back", async () => {
    const before = await probe();
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`insert into copy_probe (id, label) values (200, 'inserted before the COPY')`);
        await copyRows(tx, "copy_probe", ["id", "label"], [[201, "new"], [1, "duplicate of the first row"]]);
      }),
    ).rejects.toThrow(/duplicate key|unique/i);
    expect(await probe()).toEqual(before);
    // The connection is usable afterwards.
    await handle.db.transaction(async (tx) => copyRows(tx, "copy_probe", ["id", "label"], [[300, "after"]]));
    expect((await probe()).at(-1)).toMatchObject({ id: 300, label: "after" });
  });

  it("refuses a table or column that is not a plain identifier", async () => {
    await expect(copyRows(handle.db, "copy_probe; drop table copy_probe", ["id"], [[1]])).rejects.toThrow(/not a plain table/);
  });

  it("an array literal arrives element for element, as one parameter", async () => {
    const values = [...NASTY, null];
    // Read back as JSON text: postgres.js would parse a NULL element of a text[] result as "NULL".
    const [row] = await rowsOf<{ labels: string; n: number }>(handle.db, sql`select array_to_json(${arrayLiteral(values)}::text::text[])::text as labels, cardinality(${arrayLiteral(values)}::text::text[]) as n`);
    expect(JSON.parse(row!.labels)).toEqual(values);
    expect(Number(row!.n)).toBe(values.length);
    const [numbers] = await rowsOf<{ total: number }>(handle.db, sql`select sum(x) as total from unnest(${arrayLiteral([0.1, 0.2, 1e-7, null])}::text::float8[]) as x`);
    expect(Number(numbers!.total)).toBe(0.1 + 0.2 + 1e-7);
  });
});
