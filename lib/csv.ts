/**
 * CSV as spreadsheets read it (RFC 4180). Cells that a spreadsheet would run as
 * a formula (= + - @ at the start) are prefixed with ' so an exported name can
 * never execute in someone's spreadsheet.
 */
export function toCsv<Row>(rows: readonly Row[], columns: readonly { header: string; value: (row: Row) => unknown }[]): string {
  const line = (cells: unknown[]) => cells.map(csvCell).join(",");
  return [line(columns.map((c) => c.header)), ...rows.map((r) => line(columns.map((c) => c.value(r))))].join("\r\n") + "\r\n";
}

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = value instanceof Date ? value.toISOString() : typeof value === "object" ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
