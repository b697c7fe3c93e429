import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CURSOR_MESSAGE, cursorInput, decodeCursor, encodeCursor } from "./cursor";

const ID = "0b6c2a1e-3f4d-4e5a-9b8c-7d6e5f4a3b2c";
const OTHER = "ffffffff-3f4d-4e5a-9b8c-7d6e5f4a3b2c";
/** 2026-12-07T10:00:00.123456Z in microseconds since 1970. */
const MICROS = "1796637600123456";

describe("keyset cursor (created_at, id)", () => {
  it("decodes what it encodes, microseconds and id intact", () => {
    const text = encodeCursor({ micros: MICROS, id: ID });
    expect(text).toBe(`${MICROS}_${ID}`);
    expect(decodeCursor(text)).toEqual({ micros: MICROS, id: ID });
  });

  it("keeps two rows of the same instant apart: same microseconds, different id, different cursors", () => {
    const a = encodeCursor({ micros: MICROS, id: ID });
    const b = encodeCursor({ micros: MICROS, id: OTHER });
    expect(a).not.toBe(b);
    expect(decodeCursor(a)).toEqual({ micros: MICROS, id: ID });
    expect(decodeCursor(b)).toEqual({ micros: MICROS, id: OTHER });
  });

  it("keeps the microseconds a JavaScript Date would round away", () => {
    expect(decodeCursor(encodeCursor({ micros: "1796637600123999", id: ID }))!.micros).toBe("1796637600123999");
  });

  it.each([
    ["empty", ""],
    ["no id", MICROS],
    ["no instant", `_${ID}`],
    ["an id that is no uuid", `${MICROS}_42`],
    ["an id in capitals", `${MICROS}_${ID.toUpperCase()}`],
    ["a leading zero", `0${MICROS}_${ID}`],
    ["a sign", `-${MICROS}_${ID}`],
    ["a fraction", `${MICROS}.5_${ID}`],
    ["more digits than a bigint of microseconds keeps", `${"9".repeat(17)}_${ID}`],
    ["spaces", ` ${MICROS}_${ID}`],
    ["a third part", `${MICROS}_${ID}_x`],
    ["an ISO date", `2026-12-07T10:00:00Z_${ID}`],
  ])("refuses %s", (_label, text) => {
    expect(decodeCursor(text)).toBeNull();
  });
});

describe("cursorInput (the `after` query field)", () => {
  const query = z.object({ after: cursorInput });

  it("reads a cursor, and absent or empty as the first page", () => {
    expect(query.parse({ after: `${MICROS}_${ID}` }).after).toEqual({ micros: MICROS, id: ID });
    expect(query.parse({}).after).toBeUndefined();
    expect(query.parse({ after: "" }).after).toBeUndefined();
  });

  it.each([["garbage", "not-a-cursor"], ["a number", 42], ["a huge text", "1".repeat(5000)], ["a cursor with a bad id", `${MICROS}_nope`]])("gives an error naming the field for %s", (_label, value) => {
    const result = query.safeParse({ after: value });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.path.join("."))).toEqual(["after"]);
    expect(result.error!.issues[0]!.message).toBe(CURSOR_MESSAGE);
  });
});
