/**
 * CSV as spreadsheets read it (RFC 4180). Cells that a spreadsheet would run as
 * a formula (= + - @ at the start) are prefixed with ' so an exported name can
 * never execute in someone's spreadsheet. A plain negative number ("-0.01")
 * is left as it is: a spreadsheet reads it as that number, nothing runs, and
 * a cost column must stay a number for the tools that read the export.
 */
export function toCsv<Row>(rows: readonly Row[], columns: readonly { header: string; value: (row: Row) => unknown }[]): string {
  const line = (cells: unknown[]) => cells.map(csvCell).join(",");
  return [line(columns.map((c) => c.header)), ...rows.map((r) => line(columns.map((c) => c.value(r))))].join("\r\n") + "\r\n";
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
