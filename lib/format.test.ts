import { describe, expect, it } from "vitest";
import { formatDate, formatDateTime, labelInstant, parseTimeZone, UTC } from "./format";

describe("formatDateTime", () => {
  const at = new Date("2026-12-06T14:05:00Z");

  it("writes UTC when the zone is unknown, and the zone's own name otherwise", () => {
    expect(formatDateTime(at)).toBe("6 Dec 2026, 14:05 UTC");
    expect(formatDateTime(at, "Europe/Berlin")).toBe("6 Dec 2026, 15:05 CET");
    expect(formatDateTime(at, "America/New_York")).toBe("6 Dec 2026, 09:05 GMT-5");
    expect(formatDateTime(at, "Asia/Kolkata")).toBe("6 Dec 2026, 19:35 GMT+5:30");
  });

  it("moves the calendar day with the zone", () => {
    const lateEvening = new Date("2026-12-06T03:30:00Z");
    expect(formatDate(lateEvening)).toBe("6 Dec 2026");
    expect(formatDate(lateEvening, "America/Los_Angeles")).toBe("5 Dec 2026");
    expect(formatDate(new Date("2026-12-31T23:30:00Z"), "Pacific/Auckland")).toBe("1 Jan 2027");
  });

  it("crosses a spring-forward gap: the hour after 01:59 is 03:00, with a new offset", () => {
    expect(formatDateTime(new Date("2026-03-08T06:59:00Z"), "America/New_York")).toBe("8 Mar 2026, 01:59 GMT-5");
    expect(formatDateTime(new Date("2026-03-08T07:00:00Z"), "America/New_York")).toBe("8 Mar 2026, 03:00 GMT-4");
  });

  it("tells the two 01:30s of a fall-back night apart by their zone names", () => {
    const first = formatDateTime(new Date("2026-11-01T05:30:00Z"), "America/New_York");
    const second = formatDateTime(new Date("2026-11-01T06:30:00Z"), "America/New_York");
    expect(first).toBe("1 Nov 2026, 01:30 GMT-4");
    expect(second).toBe("1 Nov 2026, 01:30 GMT-5");
    expect(formatDateTime(new Date("2026-10-25T00:30:00Z"), "Europe/Berlin")).toBe("25 Oct 2026, 02:30 CEST");
    expect(formatDateTime(new Date("2026-10-25T01:30:00Z"), "Europe/Berlin")).toBe("25 Oct 2026, 02:30 CET");
  });

  it("labels an instant for a <time> element: local words, UTC title, ISO text", () => {
    expect(labelInstant(at, "Asia/Tokyo")).toEqual({ iso: "2026-12-06T14:05:00.000Z", text: "6 Dec 2026, 23:05 GMT+9", utc: "6 Dec 2026, 14:05 UTC" });
    expect(labelInstant(at, "Asia/Tokyo", true).text).toBe("6 Dec 2026");
  });
});

describe("parseTimeZone", () => {
  it("keeps a zone Intl knows, in Intl's canonical spelling", () => {
    expect(parseTimeZone("Europe/Berlin")).toBe("Europe/Berlin");
    expect(parseTimeZone("America/Sao_Paulo")).toBe("America/Sao_Paulo");
    expect(parseTimeZone("Etc/UTC")).toBe(UTC);
    expect(formatDateTime(new Date("2026-12-06T14:05:00Z"), parseTimeZone("Asia/Kolkata"))).toBe("6 Dec 2026, 19:35 GMT+5:30");
  });

  it("falls back to UTC for a missing, unknown, malformed or hostile value", () => {
    for (const bad of [undefined, null, "", "Mars/Olympus_Mons", "Europe/Berlin; path=/", "<script>", "../../etc/passwd", "+05:00", "GMT+5", "x".repeat(200), "Europe/Berlin\u0000"]) {
      expect(parseTimeZone(bad)).toBe(UTC);
    }
  });
});
