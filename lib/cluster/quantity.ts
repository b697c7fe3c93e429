/** Kubernetes quantities from the portal's numbers, in the shortest exact form. */

export function cpuQuantity(cores: number): string {
  if (!Number.isFinite(cores) || cores < 0) throw new Error(`invalid CPU amount ${cores}`);
  if (Number.isInteger(cores)) return String(cores);
  return `${Math.round(cores * 1000)}m`;
}

const BINARY_UNITS: [string, number][] = [
  ["Ti", 2 ** 40],
  ["Gi", 2 ** 30],
  ["Mi", 2 ** 20],
  ["Ki", 2 ** 10],
];

export function bytesQuantity(bytes: number): string {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new Error(`invalid byte amount ${bytes}`);
  if (bytes === 0) return "0";
  for (const [unit, size] of BINARY_UNITS) if (bytes % size === 0) return `${bytes / size}${unit}`;
  return String(bytes);
}

export function countQuantity(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`invalid count ${n}`);
  return String(n);
}

/** Object keys in a stable order, so equal inputs serialize identically. */
export function sortedEntries<V>(record: Record<string, V>): [string, V][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Kubernetes suffixes: decimal SI (m for milli) and binary SI; "" is a plain number. */
export const QUANTITY_SUFFIX_FACTORS: Record<string, number> = {
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

/**
 * A Kubernetes quantity ("500m", "64Gi", "1.5", "2e3") as a number, or null
 * when the text is not one (negative, empty, non-finite or malformed).
 */
export function parseQuantity(text: string): number | null {
  const match = QUANTITY.exec(text.trim());
  if (!match) return null;
  // Divide for milli: 13 * 0.001 is 0.013000000000000001 in binary floating point, 13 / 1000 is 0.013.
  const value = match[2] === "m" ? Number(match[1]) / 1000 : Number(match[1]) * QUANTITY_SUFFIX_FACTORS[match[2] ?? ""]!;
  return Number.isFinite(value) ? value : null;
}
