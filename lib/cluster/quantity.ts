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
