import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodePathSegment, firstUnsafeString, isSafeEncodedPath, unsafeTextKind } from "./text";

describe("unsafeTextKind", () => {
  it("finds a NUL anywhere in a string", () => {
    expect(unsafeTextKind("\u0000")).toBe("nul");
    expect(unsafeTextKind("vision\u0000lab")).toBe("nul");
    expect(unsafeTextKind("end\u0000")).toBe("nul");
  });

  it("finds a lone surrogate, high or low, but not a pair", () => {
    expect(unsafeTextKind("a\ud800")).toBe("lone_surrogate");
    expect(unsafeTextKind("\udc00b")).toBe("lone_surrogate");
    expect(unsafeTextKind("\udc00\ud800")).toBe("lone_surrogate"); // reversed pair
    expect(unsafeTextKind("GPU 😀")).toBeNull();
  });

  it("lets every other string through: tabs, newlines, other controls and any well-formed Unicode", () => {
    expect(unsafeTextKind("line one\nline two\ttabbed\r\n\u0007")).toBeNull();
    fc.assert(fc.property(fc.string({ unit: "grapheme" }).filter((s) => !s.includes("\u0000")), (s) => unsafeTextKind(s) === null));
  });
});

describe("firstUnsafeString", () => {
  it("answers null for clean values of every JSON shape", () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => firstUnsafeString(v) === null));
  });

  it("names the first bad value by its dotted path", () => {
    expect(firstUnsafeString("x\u0000")).toEqual({ path: "", kind: "nul", message: expect.stringContaining("NUL") as unknown });
    expect(firstUnsafeString({ name: "ok", resources: { gpu: "4", cpu: "\ud800" } })).toMatchObject({ path: "resources.cpu", kind: "lone_surrogate" });
    expect(firstUnsafeString({ names: ["a", "b", "c\u0000"] })).toMatchObject({ path: "names.2", kind: "nul" });
    expect(firstUnsafeString({ a: "\u0000", b: "\ud800" })).toMatchObject({ path: "a" });
    expect(firstUnsafeString([{ x: 1 }, { y: [true, null, "\udfff"] }])).toMatchObject({ path: "1.y.2" });
  });

  it("checks object keys too, reporting the key by position", () => {
    expect(firstUnsafeString({ ok: 1, "bad\u0000key": 2 })).toMatchObject({ path: "[key 1]", kind: "nul" });
    expect(firstUnsafeString({ labels: { "\ud800": "x" } })).toMatchObject({ path: "labels.[key 0]", kind: "lone_surrogate" });
  });

  it("finds a bad string wherever fast-check hides it in a JSON value", () => {
    const bad = fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udc00");
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), bad, (left, right, hidden) => {
        expect(firstUnsafeString({ left, deep: [right, { hidden }] })).toMatchObject({ path: "deep.1.hidden" });
      }),
    );
  });

  it("walks a very deep value without overflowing the stack", () => {
    let deep: unknown = "\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(firstUnsafeString(deep)?.kind).toBe("nul");
  });
});

describe("decodePathSegment and isSafeEncodedPath", () => {
  it("decodes UTF-8 percent-encoding", () => {
    expect(decodePathSegment("vision-lab")).toBe("vision-lab");
    expect(decodePathSegment("caf%C3%A9")).toBe("café");
    expect(decodePathSegment("%F0%9F%98%80")).toBe("😀");
  });

  it.each([
    ["%C3%28", "invalid UTF-8 (a lead byte then an ASCII byte)"],
    ["%C3", "a truncated sequence"],
    ["%FF", "a byte that is never UTF-8"],
    ["%ED%A0%80", "an encoded surrogate (CESU-8)"],
    ["%C0%AF", "an overlong encoding of /"],
    ["%G1", "a malformed escape"],
    ["abc%", "a dangling %"],
    ["%00", "an encoded NUL"],
    ["a%00b", "an encoded NUL inside"],
  ])("refuses %s (%s)", (segment) => {
    expect(decodePathSegment(segment)).toBeNull();
    expect(isSafeEncodedPath(`/api/v1/tenants/${segment}/projects`)).toBe(false);
  });

  it("accepts ordinary portal paths", () => {
    expect(isSafeEncodedPath("/")).toBe(true);
    expect(isSafeEncodedPath("/tenants/vision-lab/projects/detector-training/spend")).toBe(true);
    expect(isSafeEncodedPath("/invite/abc%2Bdef")).toBe(true);
  });
});
