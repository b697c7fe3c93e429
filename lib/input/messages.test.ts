import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Command } from "@/lib/auth/command";
import { atLeastChars, atMostChars, isSentence, parseInput, sentenceFor } from "./messages";

/**
 * Every command's input is what a form (or a REST body) sends, so every
 * message its schema gives is shown under a field, apart from the field's
 * label. This walks the commands, sends each field of each a handful of bad
 * values, and fails on any message that is not a sentence saying what to
 * enter ("must be at most 80 characters" would read as a fragment under the
 * label) or that starts with the field's own name.
 */
const modules = import.meta.glob<Record<string, unknown>>(
  ["../**/commands.ts", "../**/commands/*.ts", "../**/*-commands.ts", "../reviews/close.ts", "!../**/*.test.ts", "!../config/**"],
  { eager: true },
);

type AnyCommand = Command<z.ZodType, never, unknown>;
const isCommand = (value: unknown): value is AnyCommand =>
  typeof value === "object" && value !== null && "input" in value && "run" in value && "target" in value && value.input instanceof z.ZodType;

const commands = Object.entries(modules).flatMap(([file, exports]) =>
  Object.entries(exports)
    .filter(([, value]) => isCommand(value))
    .map(([name, value]) => ({ id: `${file.replace("../", "lib/")} ${name}`, command: value as AnyCommand })),
);

/** The keys of an object schema under wrappers (optional, default, pipe, preprocess), or [] when it is not one. */
function keysOf(schema: z.ZodType): string[] {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
  if (def.type === "object") return Object.keys(def.shape as object);
  for (const inner of ["innerType", "in", "schema"]) if (def[inner] instanceof z.ZodType) return keysOf(def[inner]);
  return [];
}

const BAD_VALUES: unknown[] = [undefined, null, "", " ", "!", "x", "-1", "1e3", "0x10", "x".repeat(70_000), -5, 12.5, 1e12, true, [], {}, ["!"], [{}]];

function messagesOf(command: AnyCommand): { field: string; message: string }[] {
  const keys = keysOf(command.input);
  const inputs = [undefined, {}, ...BAD_VALUES.map((v) => Object.fromEntries(keys.map((k) => [k, v])))];
  return inputs.flatMap((input) => {
    const parsed = parseInput(command.input, input);
    return parsed.success ? [] : parsed.error.issues.map((i) => ({ field: i.path.join("."), message: i.message }));
  });
}

describe("the messages of every form's schema", () => {
  it("finds the commands", () => {
    expect(commands.length).toBeGreaterThan(50);
  });

  it.each(commands)("$id says what to enter, in sentences", ({ command }) => {
    const bad = messagesOf(command).filter(({ field, message }) => {
      const name = field.split(".").at(-1)!;
      return !isSentence(message) || message.toLowerCase().startsWith(`${name.toLowerCase()} `);
    });
    expect([...new Map(bad.map((b) => [`${b.field}: ${b.message}`, b])).keys()]).toEqual([]);
  });
});

describe("sentenceFor", () => {
  const issues = (schema: z.ZodType, input: unknown) => {
    const parsed = parseInput(schema, input);
    return parsed.success ? [] : parsed.error.issues.map((i) => i.message);
  };

  it("says what to enter for checks stated without a message", () => {
    expect(issues(z.string(), undefined)).toEqual(["Fill in this field."]);
    expect(issues(z.string().max(80), "x".repeat(81))).toEqual([atMostChars(80)]);
    expect(issues(z.string().min(2), "x")).toEqual([atLeastChars(2)]);
    expect(issues(z.enum(["a", "b"]), "c")).toEqual(["Choose one of: a, b."]);
    expect(issues(z.email(), "ada")).toEqual(["Enter an email address, such as ada@example.com."]);
    expect(issues(z.number(), "4")).toEqual(["Enter a number."]);
  });

  it("leaves a schema's own message alone", () => {
    expect(issues(z.string().max(2, "Enter a two-letter code."), "abc")).toEqual(["Enter a two-letter code."]);
  });

  it("always gives a sentence", () => {
    for (const code of ["custom", "invalid_union", "invalid_key"] as const) expect(isSentence(sentenceFor({ code, input: 1, path: [] } as never))).toBe(true);
  });
});

describe("isSentence", () => {
  it("takes a sentence and refuses a predicate that needs the label", () => {
    expect(isSentence("Enter a whole number of GPUs, 1 or more.")).toBe(true);
    expect(isSentence("must be at most 63 characters")).toBe(false);
    expect(isSentence("Say in a sentence what the resources are for")).toBe(false);
  });
});
