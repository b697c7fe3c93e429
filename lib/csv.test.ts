import { describe, expect, it } from "vitest";
import { csvCell, toCsv } from "./csv";

describe("CSV", () => {
  it("quotes separators, quotes and newlines", () => {
    expect(csvCell('a "b", c')).toBe('"a ""b"", c"');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell(null)).toBe("");
  });

  it("neutralises spreadsheet formulas", () => {
    expect(csvCell("=HYPERLINK(\"x\")")).toBe("\"'=HYPERLINK(\"\"x\"\")\"");
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("@sum")).toBe("'@sum");
    expect(csvCell("-1+2")).toBe("'-1+2");
    expect(csvCell("-2.5e3")).toBe("'-2.5e3");
    expect(csvCell("- 1")).toBe("'- 1");
  });

  it("leaves a plain negative number a number (a cost below zero stays readable as one)", () => {
    expect(csvCell("-0.01")).toBe("-0.01");
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell("-12")).toBe("-12");
  });

  it("writes a header and one line per row", () => {
    const csv = toCsv([{ n: "Ann", d: new Date("2026-01-02T03:04:05Z") }], [
      { header: "Name", value: (r) => r.n },
      { header: "At", value: (r) => r.d },
    ]);
    expect(csv).toBe("Name,At\r\nAnn,2026-01-02T03:04:05.000Z\r\n");
  });
});
