import { z } from "zod";
import { QUANTITY_SUFFIX_FACTORS } from "@/lib/cluster/quantity";

/**
 * Numbers a person types are plain decimals. `Number()`, `parseFloat` and
 * `z.coerce.number` also read "0x10" (16), "1.5e3" (1500), "Infinity", " 4 "
 * and "" (0), and parseInt reads "4abc" as 4: a typo then becomes a quota. So
 * text is accepted only as digits with at most one decimal point, nothing
 * else: no sign, no spaces, no exponent, no hex, no separators. A JSON number
 * (REST bodies) is taken as the number it is, if finite.
 *
 * Every form field, REST body or query field and CLI argument that asks for a
 * count, an amount or a quantity goes through the schemas here. A message is
 * a sentence that says what to enter ("Enter a whole number from 0 to
 * 4096."): forms show it under the field, apart from its label
 * (components/form.tsx), and the REST error names the field in `fields`, so
 * the label is not repeated in the message. The label describes the schema
 * instead (it shows as the field's description where schemas are rendered).
 */

const WHOLE_TEXT = /^\d+$/;
const DECIMAL_TEXT = /^(?:\d+(?:\.\d+)?|\.\d+)$/;

/** A quantity as a person types it: a plain decimal and a suffix, without the exponent form ("1e3") of the full grammar. */
const TYPED_QUANTITY = /^((?:\d+(?:\.\d+)?|\.\d+))(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)$/;

/** Text a quantity field takes: a plain decimal (in the field's unit) or a typed quantity. */
const QUANTITY_TEXT = /^(?:\d+(?:\.\d+)?|\.\d+)(?:m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

/** The whole number written as plain digits, or null ("0x10", "1e3", " 4 ", "+4", "4abc", ""). */
export function parseWholeText(text: string): number | null {
  if (!WHOLE_TEXT.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/** The number written as plain decimal digits with at most one point ("2.5", ".5"), or null. */
export function parseDecimalText(text: string): number | null {
  if (!DECIMAL_TEXT.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/**
 * A Kubernetes quantity as a person types it ("500m", "64Gi", "1.5Ti"), in the
 * quantity's base unit (cores, bytes), or null. Plain numbers without a suffix
 * are not quantities here: the field's own unit applies to them (see `quantity`).
 */
export function parseTypedQuantity(text: string): number | null {
  const match = TYPED_QUANTITY.exec(text);
  if (!match) return null;
  const amount = Number(match[1]);
  // Divide for milli: 13 * 0.001 is 0.013000000000000001 in binary floating point, 13 / 1000 is 0.013.
  const value = match[2] === "m" ? amount / 1000 : amount * QUANTITY_SUFFIX_FACTORS[match[2]!]!;
  return Number.isFinite(value) ? value : null;
}

type Range = { min?: number; max?: number };

/**
 * The largest value an `integer` column holds. A count with no stated maximum
 * (versions, ids of int4 rows) stops here, so a huge number is a 400 naming
 * the field rather than the database's "out of range for type integer" (a 500).
 * Fields kept in a bigint column name their own maximum.
 */
export const INT4_MAX = 2_147_483_647;

/** ", 1 or more" or " from 0 to 4096": how a message ends after what to enter. */
function rangeText(range: Range): string {
  const min = range.min ?? 0;
  return range.max === undefined ? `, ${min} or more` : ` from ${min} to ${range.max}`;
}

/**
 * What an empty field (absent, null or "") means: a value (`empty: 0`, `empty:
 * null` for "none"), or, when `empty` is not given, that the field is required.
 */
type EmptyOption<E> = { empty?: E };

/**
 * The shapes a number field accepts before it is read: a JSON number within
 * the range, text of the given grammar, and null or "" where empty has a
 * meaning. Stated as zod checks (not only inside the transform), so the
 * OpenAPI document generated from this schema carries the same types, bounds
 * and patterns that validate the request.
 */
function acceptedShapes(range: { jsonMin: number; jsonMax?: number; integer?: boolean; positive?: boolean }, text: RegExp, hasEmpty: boolean, messages: { invalid: string; tooLarge?: string }) {
  let jsonNumber = z.number({ message: messages.invalid });
  if (range.integer) jsonNumber = jsonNumber.int(messages.invalid);
  jsonNumber = range.positive ? jsonNumber.positive(messages.invalid) : jsonNumber.min(range.jsonMin, messages.invalid);
  if (range.jsonMax !== undefined) jsonNumber = jsonNumber.max(range.jsonMax, messages.tooLarge ?? messages.invalid);
  const textPattern = hasEmpty ? new RegExp(`^(?:${text.source.slice(1, -1)})?$`) : text;
  const textShape = z.string().regex(textPattern, messages.invalid);
  const shapes = hasEmpty ? ([jsonNumber, textShape, z.null()] as const) : ([jsonNumber, textShape] as const);
  return z.union(shapes, { message: messages.invalid });
}

function numberField<E extends number | null | undefined = never>(
  label: string,
  options: Range & EmptyOption<E>,
  shapes: { jsonMin: number; jsonMax?: number; integer?: boolean; positive?: boolean; text: RegExp },
  read: (raw: string | number) => number | null,
  messages: { invalid: string; tooLarge?: string },
) {
  const hasEmpty = "empty" in options;
  const accepted = acceptedShapes(shapes, shapes.text, hasEmpty, messages).describe(label);
  // Only a field with a meaning for empty may be left out: a required one stays required in the OpenAPI document too.
  return (hasEmpty ? accepted.optional() : accepted).transform((raw, ctx): number | E => {
    if (raw === undefined || raw === null || raw === "") {
      if (hasEmpty) return options.empty as E;
      ctx.addIssue({ code: "custom", message: messages.invalid });
      return z.NEVER;
    }
    const value = read(raw);
    if (value === null || !Number.isFinite(value) || value < (options.min ?? 0)) {
      ctx.addIssue({ code: "custom", message: messages.invalid });
      return z.NEVER;
    }
    if (options.max !== undefined && value > options.max) {
      ctx.addIssue({ code: "custom", message: messages.tooLarge ?? messages.invalid });
      return z.NEVER;
    }
    return value;
  });
}

/** A count: plain digits, or a whole JSON number, within the range (min defaults to 0, max to what an integer column holds). */
export function wholeNumber<E extends number | null | undefined = never>(label: string, range: Range & EmptyOption<E> = {}) {
  const read = (raw: string | number) => (typeof raw === "number" ? (Number.isSafeInteger(raw) ? raw : null) : parseWholeText(raw));
  const bounded = { ...range, max: range.max ?? INT4_MAX };
  return numberField(label, bounded, { jsonMin: bounded.min ?? 0, jsonMax: bounded.max, integer: true, text: WHOLE_TEXT }, read, {
    invalid: `Enter a whole number${rangeText(range)}.`,
    tooLarge: range.max === undefined ? `Enter a whole number no larger than ${INT4_MAX}.` : undefined,
  });
}

/** An amount such as 2.5: plain decimal text, or a finite JSON number, within the range (min defaults to 0). */
export function decimalNumber<E extends number | null | undefined = never>(label: string, range: Range & EmptyOption<E> = {}) {
  const read = (raw: string | number) => (typeof raw === "number" ? raw : parseDecimalText(raw));
  return numberField(label, range, { jsonMin: range.min ?? 0, jsonMax: range.max, text: DECIMAL_TEXT }, read, { invalid: `Enter a number${rangeText(range)}, such as 4 or 2.5.` });
}

/**
 * A resource amount: a plain decimal (text or JSON number) in the field's
 * `unit` (cores: 1, GiB: 2^30), or a Kubernetes quantity with a suffix
 * ("500m", "64Gi"), never an exponent. The range is in the base unit (cores,
 * bytes). `whole`: the result in the base unit must be whole (bytes, GPUs).
 */
export function quantity<E extends number | null | undefined = never>(
  label: string,
  options: Range & EmptyOption<E> & { unit: number; example: string; whole?: boolean; tooLarge?: string; positive?: boolean },
) {
  const read = (raw: string | number): number | null => {
    const plain = typeof raw === "number" ? raw : parseDecimalText(raw);
    const value = plain !== null ? plain * options.unit : parseTypedQuantity(raw as string);
    if (value === null || !options.whole) return value;
    const rounded = Math.round(value);
    return Math.abs(rounded - value) > 1e-9 ? null : rounded;
  };
  // A JSON number is in the field's unit, so its bounds are the base-unit range divided by that unit.
  const json = { jsonMin: (options.min ?? 0) / options.unit, jsonMax: options.max === undefined ? undefined : options.max / options.unit, positive: options.positive };
  return numberField(label, options, { ...json, text: QUANTITY_TEXT }, read, { invalid: `Enter ${options.example}.`, tooLarge: options.tooLarge ?? "Enter a smaller amount: this is more than any cluster could grant." });
}
