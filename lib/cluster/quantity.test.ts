import { describe, expect, it } from "vitest";
import { bytesQuantity, cpuQuantity, parseQuantity } from "./quantity";

describe("parseQuantity", () => {
  it.each([
    ["500m", 0.5],
    ["2", 2],
    ["1.5", 1.5],
    ["64Gi", 64 * 2 ** 30],
    ["10G", 10e9],
    ["1k", 1000],
    ["2e3", 2000],
    [" 4 ", 4],
    ["0", 0],
  ])("reads %s", (text, value) => expect(parseQuantity(text)).toBe(value));

  it.each(["", "-1", "abc", "1.2.3", "5Gb", "Infinity", "NaN", "1e400", "Gi"])("refuses %j", (text) => expect(parseQuantity(text)).toBeNull());

  it("reads back what the formatters write", () => {
    for (const cores of [0, 0.25, 1, 3.5, 96]) expect(parseQuantity(cpuQuantity(cores))).toBe(cores);
    for (const bytes of [0, 2 ** 20, 3 * 2 ** 30, 123456789]) expect(parseQuantity(bytesQuantity(bytes))).toBe(bytes);
  });
});
