import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CURSOR_MESSAGE, cursorInput, decodeCursor, encodeCursor } from "./cursor";

const ID = "0b6c2a1e-3f4d-4e5a-9b8c-7d6e5f4a3b2c";
const OTHER = "ffffffff-3f4d-4e5a-9b8c-7d6e5f4a3b2c";

describe("keyset cursor (created_at, id)", () => {
  it("decodes what it encodes, microseconds and id intact", () => {
    const cursor = { at: "2026-12-07T10:00:00.123456Z", id: ID };
    const text = encodeCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(text)).toEqual(cursor);
  });

  it("keeps two rows of the same instant apart: same at, different id, different cursors", () => {
    const at = "2026-12-07T10:00:00.000001Z";
    const a = encodeCursor({ at, id: ID });
    const b = encodeCursor({ at, id: OTHER });
    expect(a).not.toBe(b);
    expect(decodeCursor(a)).toEqual({ at, id: ID });
    expect(decodeCursor(b)).toEqual({ at, id: OTHER });
  });

  it("keeps the microseconds a JavaScript Date would round away", () => {
    const at = "2026-12-07T10:00:00.123999Z";
    expect(decodeCursor(encodeCursor({ at, id: ID }))!.at).toBe(at);
    expect(new Date(at).toISOString()).toBe("2026-12-07T10:00:00.123Z");
  });

  it.each([
    ["empty", ""],
    ["not base64url", "abc$%^"],
    ["base64 of something else", Buffer.from("hello world").toString("base64url")],
    ["no id", Buffer.from("2026-12-07T10:00:00.000000Z").toString("base64url")],
    ["an id that is no uuid", Buffer.from("2026-12-07T10:00:00.000000Z 42").toString("base64url")],
    ["a date that does not exist", Buffer.from(`2026-02-31T10:00:00.000000Z ${ID}`).toString("base64url")],
    ["an hour that does not exist", Buffer.from(`2026-12-07T25:00:00.000000Z ${ID}`).toString("base64url")],
    ["an instant without its zone", Buffer.from(`2026-12-07T10:00:00 ${ID}`).toString("base64url")],
    ["a third part", Buffer.from(`2026-12-07T10:00:00.000000Z ${ID} x`).toString("base64url")],
    ["padding", `${encodeCursor({ at: "2026-12-07T10:00:00Z", id: ID })}==`],
    ["too long", "A".repeat(201)],
  ])("refuses %s", (_label, text) => {
    expect(decodeCursor(text)).toBeNull();
  });
});

describe("cursorInput (the `after` query field)", () => {
  const query = z.object({ after: cursorInput });

  it("reads a cursor, and absent or empty as the first page", () => {
    const text = encodeCursor({ at: "2026-12-07T10:00:00.5Z", id: ID });
    expect(query.parse({ after: text }).after).toEqual({ at: "2026-12-07T10:00:00.5Z", id: ID });
    expect(query.parse({}).after).toBeUndefined();
    expect(query.parse({ after: "" }).after).toBeUndefined();
  });

  it.each([["garbage", "not-a-cursor"], ["a number", 42], ["a huge text", "A".repeat(5000)], ["a forged cursor", Buffer.from("1 2").toString("base64url")]])("gives an error naming the field for %s", (_label, value) => {
    const result = query.safeParse({ after: value });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.path.join("."))).toEqual(["after"]);
    expect(result.error!.issues[0]!.message).toBe(CURSOR_MESSAGE);
  });
});
