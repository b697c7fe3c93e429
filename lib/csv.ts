/**
 * CSV as spreadsheets read it (RFC 4180). Cells that a spreadsheet would run as
 * a formula (= + - @ at the start) are prefixed with ' so an exported name can
 * never execute in someone's spreadsheet. A plain negative number ("-0.01")
 * is left as it is: a spreadsheet reads it as that number, nothing runs, and
 * a cost column must stay a number for the tools that read the export.
 */
export function toCsv<Row>(rows: readonly Row[], columns: readonly { header: string; value: (row: Row) => unknown }[]): string {
  return csvLine(columns.map((c) => c.header)) + csvLines(rows, columns);
}

/** One CSV record with its CRLF ending: what toCsv writes per row (and for the header). */
export const csvLine = (cells: readonly unknown[]): string => `${cells.map(csvCell).join(",")}\r\n`;

/** The records of some rows, no header: a streamed file is its header's csvLine, then these part by part. */
export function csvLines<Row>(rows: readonly Row[], columns: readonly { value: (row: Row) => unknown }[]): string {
  let out = "";
  for (const r of rows) out += csvLine(columns.map((c) => c.value(r)));
  return out;
}

const PLAIN_NUMBER = /^-\d+(\.\d+)?$/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text: string;
  if (value instanceof Date) text = value.toISOString();
  else if (typeof value === "string") text = value;
  else if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") text = value.toString();
  else text = JSON.stringify(value) ?? "";
  if (/^[=+\-@\t\r]/.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
