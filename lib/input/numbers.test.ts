import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { decimalNumber, parseDecimalText, parseTypedQuantity, parseWholeText, quantity, wholeNumber } from "./numbers";

const GiB = 2 ** 30;
// What Number(), parseFloat, parseInt or z.coerce.number read as a number, and a person did not mean as one.
const NOT_DECIMAL = ["0x10", "0X10", "0b11", "0o7", "1.5e3", "1e3", "1E3", "Infinity", "-Infinity", "NaN", " 4 ", " 4", "4 ", "\t4", "4\n", "4abc", "+4", "-4", "", "1,000", "1_000", "4.", ".", "1.2.3", "٤", "４"];

function messageOf(result: { success: boolean; error?: { issues: { message: string }[] } }): string | undefined {
  return result.success ? undefined : result.error?.issues[0]?.message;
}

describe("parseWholeText and parseDecimalText", () => {
  it.each(NOT_DECIMAL)("refuse %j", (text) => {
    expect(parseWholeText(text)).toBeNull();
    expect(parseDecimalText(text)).toBeNull();
  });

  it("read plain digits, with one decimal point for decimals", () => {
    expect(parseWholeText("0")).toBe(0);
    expect(parseWholeText("007")).toBe(7);
    expect(parseWholeText("4096")).toBe(4096);
    expect(parseWholeText("2.5")).toBeNull();
    expect(parseDecimalText("2.5")).toBe(2.5);
    expect(parseDecimalText(".5")).toBe(0.5);
    expect(parseDecimalText("10")).toBe(10);
  });

  it("refuse whole numbers beyond what a double holds exactly", () => {
    expect(parseWholeText("9007199254740993")).toBeNull();
  });

  it("agree with the number every plain decimal writes", () => {
    fc.assert(fc.property(fc.nat(), (n) => parseWholeText(String(n)) === n && parseDecimalText(String(n)) === n));
    fc.assert(fc.property(fc.nat(), fc.nat({ max: 999 }), (a, b) => parseDecimalText(`${a}.${b}`) === Number(`${a}.${b}`)));
  });

  it("refuse any text with something besides digits and one point", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        if (!/^\d+$/.test(text)) expect(parseWholeText(text)).toBeNull();
        if (!/^(\d+(\.\d+)?|\.\d+)$/.test(text)) expect(parseDecimalText(text)).toBeNull();
      }),
    );
  });
});

describe("parseTypedQuantity", () => {
  it.each([
    ["500m", 0.5],
    ["13m", 0.013],
    ["64Gi", 64 * GiB],
    ["1.5Ti", 1.5 * 2 ** 40],
    ["2k", 2000],
  ])("reads %s", (text, value) => {
    expect(parseTypedQuantity(text)).toBe(value);
  });

  it.each(["1e3", "1.5e3", "1E3", "1e3Gi", "0x10Gi", "+4Gi", " 4Gi", "4Gi ", "4 Gi", "4gi", "Gi", "4", "-1Gi", "InfinityGi"])("refuses %j", (text) => {
    expect(parseTypedQuantity(text)).toBeNull();
  });
});

describe("wholeNumber", () => {
  const gpus = wholeNumber("GPUs", { max: 4096, empty: 0 });

  it.each(NOT_DECIMAL.filter((t) => t !== ""))("refuses %j with a message the form puts after the field's label", (text) => {
    expect(messageOf(gpus.safeParse(text))).toBe("Enter a whole number from 0 to 4096.");
  });

  it("accepts digits and whole JSON numbers within the range, and gives empty its meaning", () => {
    expect(gpus.parse("8")).toBe(8);
    expect(gpus.parse(8)).toBe(8);
    expect(gpus.parse("")).toBe(0);
    expect(gpus.parse(undefined)).toBe(0);
    expect(gpus.parse(null)).toBe(0);
    expect(gpus.safeParse("4097").success).toBe(false);
    expect(gpus.safeParse(2.5).success).toBe(false);
    expect(gpus.safeParse(Number.POSITIVE_INFINITY).success).toBe(false);
    expect(gpus.safeParse(-1).success).toBe(false);
  });

  it("refuses empty where the field is required", () => {
    const nodes = wholeNumber("Nodes", { min: 1 });
    expect(messageOf(nodes.safeParse(""))).toBe("Enter a whole number, 1 or more.");
    expect(messageOf(nodes.safeParse(undefined))).toBe("Enter a whole number, 1 or more.");
    expect(messageOf(nodes.safeParse("0"))).toBe("Enter a whole number, 1 or more.");
  });

  it("keeps an absent optional field absent inside an object", () => {
    const schema = wholeNumber("Expires in (days)", { min: 1, max: 365, empty: undefined });
    expect(schema.parse("")).toBeUndefined();
    expect(schema.parse("30")).toBe(30);
  });
});

describe("decimalNumber", () => {
  const ratio = decimalNumber("CPU overcommit ratio", { min: 0.1, max: 20 });

  it.each(NOT_DECIMAL)("refuses %j with a message the form puts after the field's label", (text) => {
    expect(messageOf(ratio.safeParse(text))).toBe("Enter a number from 0.1 to 20, such as 4 or 2.5.");
  });

  it("accepts plain decimals and JSON numbers", () => {
    expect(ratio.parse("1.5")).toBe(1.5);
    expect(ratio.parse(2)).toBe(2);
    expect(ratio.safeParse("0.05").success).toBe(false);
  });
});

describe("quantity", () => {
  const cpu = quantity("CPU cores", { unit: 1, max: 100_000, empty: 0, example: "a number of cores such as 4 or 500m" });
  const memory = quantity("Memory (GiB)", { unit: GiB, max: 2 ** 50, empty: 0, whole: true, example: "a number of GiB such as 64, or a quantity such as 64Gi" });

  it("reads plain decimals in the field's unit and Kubernetes quantities", () => {
    expect(cpu.parse("4")).toBe(4);
    expect(cpu.parse("1.5")).toBe(1.5);
    expect(cpu.parse("500m")).toBe(0.5);
    expect(cpu.parse(2)).toBe(2);
    expect(memory.parse("64")).toBe(64 * GiB);
    expect(memory.parse("64Gi")).toBe(64 * GiB);
    expect(memory.parse("512Mi")).toBe(512 * 2 ** 20);
    expect(memory.parse("")).toBe(0);
  });

  it.each(["1.5e3", "1e3", "0x10", "Infinity", " 4 ", "4abc", "+4", "-1", "1e3m", "4 Gi"])("refuses %j, naming the field", (text) => {
    expect(messageOf(cpu.safeParse(text))).toBe("Enter a number of cores such as 4 or 500m.");
  });

  it("refuses what no cluster could grant, and bytes that are not whole", () => {
    expect(messageOf(cpu.safeParse("1000000"))).toBe("Enter a smaller amount: this is more than any cluster could grant.");
    expect(messageOf(memory.safeParse("1m"))).toBe("Enter a number of GiB such as 64, or a quantity such as 64Gi.");
  });
});

describe("messages", () => {
  // Forms show the message under the field, apart from its label (components/form.tsx): a sentence that
  // says what to enter. The label is beside it already, and REST errors name the field in `fields`.
  const schemas = [
    ["GPUs", wholeNumber("GPUs", { max: 4096 })],
    ["Ratio", decimalNumber("Ratio", { min: 0.1, max: 20 })],
    ["CPU cores", quantity("CPU cores", { unit: 1, max: 10, example: "a number of cores such as 4 or 500m" })],
  ] as const;

  it.each(schemas)("%s: every message is a sentence saying what to enter, never naming the label", (label, schema) => {
    for (const text of ["-1", "1e3", "99999999", "", "x"]) {
      const message = messageOf(schema.safeParse(text));
      expect(message).toMatch(/^Enter .+\.$/);
      expect(message).not.toContain(label);
    }
  });

  it("the label describes the schema as documents render it", () => {
    expect(z.toJSONSchema(wholeNumber("GPUs"), { io: "input" })).toMatchObject({ description: "GPUs" });
  });
});
