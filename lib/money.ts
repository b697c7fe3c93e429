/**
 * The one money rule of every report, page, export and API answer.
 *
 * Cost is exact `numeric` in the database. An amount is rounded once, to the
 * currency's minor unit (cents for USD and EUR, none for JPY), half away from
 * zero, on each line that is shown or exported; every total is the sum of
 * the rounded lines, added in integer minor units, never in floats. So the
 * parts shown beside a total always add up to it, and the same figure on two
 * pages is the same number because this module computes it.
 *
 * Amounts cross the wire (JSON, the report objects) as numbers in major
 * units that are exactly a whole number of minor units (72490.2 for
 * $72,490.20); `toMinor` reads them back without loss. Pure and safe in
 * client components.
 */

/** An amount in integer minor units (cents). Always a safe integer. */
export type Minor = number;

const digitsCache = new Map<string, number>();

/** Decimal places of a currency's minor unit, as ISO 4217 and Intl know them: USD 2, JPY 0, BHD 3. */
export function minorDigits(currency: string): number {
  let d = digitsCache.get(currency);
  if (d === undefined) {
    d = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
    digitsCache.set(currency, d);
  }
  return d;
}

const DECIMAL = /^([+-])?(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/**
 * A decimal written as text ("123.456789", "-0.005", "1e-7") scaled to `digits`
 * decimals and rounded half away from zero, exactly (no float on the way).
 */
export function scaleDecimal(text: string, digits: number): bigint {
  const m = DECIMAL.exec(text.trim());
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
  const negative = m[1] === "-";
  const all = `${m[2]}${m[3] ?? ""}`;
  // The position of the decimal point in `all`, after the exponent moves it.
  const point = m[2]!.length + Number(m[4] ?? 0);
  const keep = point + digits;
  let units: bigint;
  if (keep <= 0) {
    units = keep === 0 && all !== "" && Number(all[0]) >= 5 ? 1n : 0n;
  } else {
    const kept = keep >= all.length ? all.padEnd(keep, "0") : all.slice(0, keep);
    units = BigInt(kept === "" ? "0" : kept);
    if (keep < all.length && Number(all[keep]) >= 5) units += 1n;
  }
  return negative ? -units : units;
}

function safe(n: bigint): Minor {
  const v = Number(n);
  if (!Number.isSafeInteger(v)) throw new RangeError(`amount out of range: ${n} minor units`);
  return v;
}

/**
 * An amount in minor units, rounded once, half away from zero. Text is read
 * exactly (a `numeric` column arrives as text); a number is read as the
 * shortest decimal that names it (String(0.1) is "0.1"), so 1.005 is 1.01.
 */
export function toMinor(value: string | number, digits: number): Minor {
  if (typeof value === "number" && !Number.isFinite(value)) throw new RangeError(`not an amount: ${value}`);
  return safe(scaleDecimal(String(value), digits));
}

/** The sum of amounts already in minor units: exact (integers), refused beyond the safe range. */
export function sumMinor(values: Iterable<Minor>): Minor {
  let total = 0n;
  for (const v of values) {
    if (!Number.isSafeInteger(v)) throw new RangeError(`not a whole number of minor units: ${v}`);
    total += BigInt(v);
  }
  return safe(total);
}

/** numerator ÷ denominator rounded half away from zero, exactly (denominator > 0). */
export function divideRounded(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError("the denominator must be positive");
  const negative = numerator < 0n;
  const n = negative ? -numerator : numerator;
  const q = (n * 2n + denominator) / (denominator * 2n);
  return negative ? -q : q;
}

/** An amount in minor units as decimal text in major units: 7249020 → "72490.20". */
export function decimalText(minor: Minor, digits: number): string {
  const negative = minor < 0;
  const s = String(Math.abs(minor)).padStart(digits + 1, "0");
  const body = digits === 0 ? s : `${s.slice(0, -digits)}.${s.slice(-digits)}`;
  return negative ? `-${body}` : body;
}

/** Beyond 15 significant digits a number in major units no longer names its minor units exactly ($10 trillion). */
const MAX_MAJOR_EXACT = 10 ** 15;

/** An amount in minor units as a number in major units (what reports and JSON carry): 7249020 → 72490.2. Reads back exactly with toMinor. */
export function toMajor(minor: Minor, digits: number): number {
  if (!Number.isSafeInteger(minor) || Math.abs(minor) >= MAX_MAJOR_EXACT) throw new RangeError(`amount out of range: ${minor} minor units`);
  return Number(decimalText(minor, digits));
}

/** Round a major-unit amount to the minor unit (one line's figure). */
export const roundMoney = (value: string | number, digits: number): number => toMajor(toMinor(value, digits), digits);

/** The sum of major-unit amounts that are each already rounded lines, added in minor units. */
export function sumMoney(values: Iterable<number>, digits: number): number {
  const minor: Minor[] = [];
  for (const v of values) minor.push(toMinor(v, digits));
  return toMajor(sumMinor(minor), digits);
}

/** a − b on rounded major-unit amounts, in minor units. */
export const subtractMoney = (a: number, b: number, digits: number): number => toMajor(toMinor(a, digits) - toMinor(b, digits), digits);

/**
 * A share of two rounded amounts (part ÷ whole), null when the whole is not
 * positive. Shares are computed from the same rounded figures the page shows.
 */
export function shareOf(part: number, whole: number, digits: number): number | null {
  const w = toMinor(whole, digits);
  return w > 0 ? toMinor(part, digits) / w : null;
}

const formatters = new Map<string, Intl.NumberFormat>();

/**
 * A rounded amount as people read it: "$72,490.20" (en-GB, narrow symbol).
 * Formatted from its exact decimal text, so what is shown is the figure the
 * sums used, never a float re-rounded.
 */
export function formatMoney(value: number, currency: string): string {
  const digits = minorDigits(currency);
  let f = formatters.get(currency);
  if (!f) {
    f = new Intl.NumberFormat("en-GB", { style: "currency", currency, currencyDisplay: "narrowSymbol", minimumFractionDigits: digits, maximumFractionDigits: digits });
    formatters.set(currency, f);
  }
  // Intl formats decimal strings exactly (ES2023); the type still says number.
  return f.format(decimalText(toMinor(value, digits), digits) as unknown as number);
}

const priceFormatters = new Map<string, Intl.NumberFormat>();

/** The decimals the rate card keeps (rates.unit_price is numeric(18, 6)). */
export const UNIT_PRICE_DIGITS = 6;

/**
 * A unit price as people read it: "$0.004", "$2.50" (en-GB, narrow symbol, as
 * formatMoney). At least the currency's minor digits and up to the six the
 * rate card keeps, so a price of $0.0042 per GiB-hour never reads as $0.00.
 * A decimal string is formatted exactly.
 */
export function formatUnitPrice(value: number | string, currency: string): string {
  let f = priceFormatters.get(currency);
  if (!f) {
    f = new Intl.NumberFormat("en-GB", { style: "currency", currency, currencyDisplay: "narrowSymbol", minimumFractionDigits: minorDigits(currency), maximumFractionDigits: UNIT_PRICE_DIGITS });
    priceFormatters.set(currency, f);
  }
  return f.format(decimalText(safe(scaleDecimal(String(value), UNIT_PRICE_DIGITS)), UNIT_PRICE_DIGITS) as unknown as number);
}

/** A quantity (not money) to a fixed number of decimals, half away from zero: exports carry QUANTITY_DECIMALS. */
export const roundDecimal = (value: string | number, places: number): number => Number(decimalText(safe(scaleDecimal(String(value), places)), places));

/** A rounded amount divided by a whole count (a daily average), rounded once, half away from zero. */
export function divideMoney(value: number, count: number, digits: number): number {
  if (!Number.isSafeInteger(count) || count <= 0) throw new RangeError(`not a positive whole count: ${count}`);
  return toMajor(Number(divideRounded(BigInt(toMinor(value, digits)), BigInt(count))), digits);
}
