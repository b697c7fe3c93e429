/**
 * Instants as people read them in the portal: in the viewer's time zone when
 * the page knows it (the allot-tz cookie, lib/time-zone.ts), else UTC, with
 * the zone written after a time so no figure is ambiguous. Exports, the API,
 * notifications and mail stay in UTC (they are read by someone else, later).
 * The one place that turns a Date into words; components/time.tsx wraps it.
 */

export const UTC = "UTC";

/** An IANA zone name as a browser reports it, read leniently but never trusted: letters, digits, _ + - / only. */
const ZONE_SHAPE = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;
let knownZones: Set<string> | null = null;

/**
 * The zone to render in: `value` when it names a zone in Intl's list (aliases
 * such as Asia/Kolkata or Etc/UTC read as Intl's canonical name), else UTC.
 */
export function parseTimeZone(value: string | null | undefined): string {
  if (!value || !ZONE_SHAPE.test(value)) return UTC;
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat("en", { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return UTC;
  }
  knownZones ??= new Set(Intl.supportedValuesOf("timeZone"));
  return canonical === UTC || knownZones.has(canonical) ? canonical : UTC;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

function formatter(cache: Map<string, Intl.DateTimeFormat>, zone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let f = cache.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", { ...options, timeZone: zone });
    cache.set(zone, f);
  }
  return f;
}

/** The calendar day of an instant in `zone`: "6 Dec 2026". */
export function formatDate(date: Date, zone: string = UTC): string {
  return formatter(dateFormats, zone, { year: "numeric", month: "short", day: "numeric" }).format(date);
}

/**
 * Day and minute of an instant in `zone`, the zone written: "6 Dec 2026, 14:05 UTC",
 * "6 Dec 2026, 09:05 GMT-5", "6 Dec 2026, 15:05 CET". In a DST fall-back hour
 * the two 01:30s differ by their zone names.
 */
export function formatDateTime(date: Date, zone: string = UTC): string {
  const parts = formatter(dateTimeFormats, zone, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" }).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("day")} ${part("month")} ${part("year")}, ${part("hour")}:${part("minute")} ${part("timeZoneName")}`;
}

/** yyyy-mm-dd for <input type="date">: a UTC day, as the forms that take one say. */
export function dateInputValue(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** An instant ready for a <time> element: its words in `zone`, its exact UTC time for the title, its ISO text. */
export type InstantLabel = { iso: string; text: string; utc: string };

export function labelInstant(at: Date, zone: string, day = false): InstantLabel {
  return { iso: at.toISOString(), text: day ? formatDate(at, zone) : formatDateTime(at, zone), utc: formatDateTime(at) };
}
