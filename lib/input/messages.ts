import type { z } from "zod";

/**
 * What a field's problem says: one sentence, starting with a capital and
 * ending with a full stop, that tells what to enter ("Enter at most 80
 * characters."). Forms show it under the field, apart from the field's label
 * (components/form.tsx); the REST error names the field in `fields`. So a
 * message never starts with, or needs, the field's name.
 *
 * Schemas use these for the wording that repeats; `sentenceFor` says the same
 * for the checks a schema states without a message of its own.
 */

export const FILL_IN = "Fill in this field.";
export const EMAIL_ADDRESS = "Enter an email address, such as ada@example.com.";
/** An id the page put in the form (a hidden field): a person only sees it after tampering or a stale page. */
export const VALID_ID = "Enter a valid id: reload the page and try again.";
export const DATE_EXAMPLE = "Enter a date such as 2027-01-31.";
export const MORE_THAN_ZERO = "Enter an amount more than 0.";
export const NOT_NEGATIVE = "Enter 0 or more.";
export const FUTURE_DATE = "Enter a date in the future.";
export const NO_POOL_OFFERS = "Choose a GPU model a node pool offers.";
export const TELL_REQUESTER_WHY = "Tell the requester why, in at least 5 characters.";

/** "Enter at most 80 characters." */
export function atMostChars(max: number): string {
  return `Enter at most ${max.toLocaleString("en")} characters.`;
}

/** "Enter at least 2 characters." (1 is "Fill in this field.") */
export function atLeastChars(min: number): string {
  return min <= 1 ? FILL_IN : `Enter at least ${min.toLocaleString("en")} characters.`;
}

/** "Enter at most 10 at once." for lists, with what they hold ("email addresses"). */
export function atMostItems(max: number, items = "items"): string {
  return `Enter at most ${max.toLocaleString("en")} ${items} at once.`;
}

/** "Choose one of: a, b, c." */
export function oneOf(values: readonly unknown[]): string {
  return `Choose one of: ${values.map(String).join(", ")}.`;
}

/** The name rule of slugs and account names, said once. */
export const SLUG_RULE = "Use lower-case letters, digits and hyphens, starting with a letter and ending with a letter or digit.";

const TYPE_NAMES: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  date: "a date such as 2027-01-31",
};

const FORMAT_SENTENCES: Record<string, string> = {
  email: EMAIL_ADDRESS,
  uuid: VALID_ID,
  guid: VALID_ID,
  url: "Enter a URL, such as https://example.com.",
  datetime: "Enter a date-time such as 2027-01-31T12:00:00Z.",
  date: DATE_EXAMPLE,
};

type Issue = z.core.$ZodRawIssue;

/**
 * The sentence for a check a schema states without its own message (`.max(80)`,
 * `z.enum([...])`, a missing field). Passed to `safeParse` where input from a
 * person or a client is parsed (parseInput), so a message the schema gives
 * itself still wins.
 */
export function sentenceFor(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined || issue.input === null) return FILL_IN;
      return `Enter ${TYPE_NAMES[issue.expected] ?? "a valid value"}.`;
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string") return atMostChars(max);
      if (issue.origin === "array" || issue.origin === "set") return atMostItems(max);
      return issue.inclusive === false ? `Enter a number smaller than ${max}.` : `Enter a number no larger than ${max}.`;
    }
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string") return atLeastChars(min);
      if (issue.origin === "array" || issue.origin === "set") return min <= 1 ? "Choose at least one." : `Choose at least ${min}.`;
      return issue.inclusive === false ? `Enter a number larger than ${min}.` : `Enter a number, ${min} or more.`;
    }
    case "invalid_format":
      return FORMAT_SENTENCES[issue.format] ?? "Enter it in the format asked for.";
    case "invalid_value":
      return issue.values.length === 1 ? `Enter ${String(issue.values[0])}.` : oneOf(issue.values);
    case "not_multiple_of":
      return `Enter a multiple of ${String(issue.divisor)}.`;
    case "unrecognized_keys":
      return `Remove what is not asked for: ${issue.keys.join(", ")}.`;
    default:
      return "Enter a valid value.";
  }
}

/** `schema.safeParse(raw)` with the sentences above for checks that have no message of their own. */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.ZodSafeParseResult<z.output<S>> {
  return schema.safeParse(raw, { error: sentenceFor });
}

/** A message shaped as the sentences above: a capital first, a full stop (or ? or !) last. */
export function isSentence(message: string): boolean {
  return /^[A-Z0-9"“'(]/.test(message) && /[.?!]["”')]?$/.test(message.trim());
}
