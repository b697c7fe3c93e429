import { divideRounded, sumMinor, toMajor, toMinor } from "@/lib/money";

/**
 * Month to date and a forecast to month end, from daily costs. The forecast
 * takes the average of the last seven complete days (fewer for a project with
 * less history) and carries it over the time left in the month: recent days
 * say more about the next ones than the month's start does.
 *
 * Money as lib/money.ts rules it: the days are rounded lines, month to date
 * is their sum, the daily rate and the rest of the month are each rounded
 * once from the exact average, and forecast = month to date + the rest, all
 * in minor units. Every page shows these figures as they come from here.
 */
export interface MonthForecast {
  monthStart: string;
  /** Spend from the month's first day through the last complete hour. */
  monthToDate: number;
  /** monthToDate plus the expected spend of the rest of the month. */
  forecast: number;
  /** The daily rate the forecast carries forward. */
  dailyRate: number;
  daysInMonth: number;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export function monthStartOf(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export function nextMonthStartOf(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/**
 * @param daily cost per UTC day (YYYY-MM-DD) covering at least the month so far and the seven days before today
 */
export function forecastMonth(daily: readonly { day: string; cost: number }[], now: Date, digits: number): MonthForecast {
  const monthStart = monthStartOf(now);
  const monthEnd = nextMonthStartOf(now);
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const byDay = new Map(daily.map((d) => [d.day, toMinor(d.cost, digits)]));
  const iso = (t: number) => new Date(t).toISOString().slice(0, 10);

  const sofar: number[] = [];
  for (let t = monthStart.getTime(); t <= today.getTime(); t += DAY_MS) sofar.push(byDay.get(iso(t)) ?? 0);
  const monthToDate = sumMinor(sofar);

  // Complete days before today, at most seven, that the data covers (a young project has fewer).
  const firstDay = daily.length ? Math.min(...daily.map((d) => Date.parse(`${d.day}T00:00:00Z`))) : today.getTime();
  const recent: number[] = [];
  for (let t = today.getTime() - DAY_MS; t >= today.getTime() - 7 * DAY_MS && t >= firstDay; t -= DAY_MS) recent.push(byDay.get(iso(t)) ?? 0);
  const sum = BigInt(sumMinor(recent));
  const days = BigInt(recent.length);
  const dailyRate = days > 0n ? divideRounded(sum, days) : 0n;
  // Carried over the time left in the month from the start of this hour (usage is metered by the hour, and today's
  // so far is already in monthToDate): sum ÷ days × ms left ÷ a day's ms. Counting from the hour, not the
  // millisecond, makes every page read within the hour (the home page, then its spend page) show the same forecast.
  const hourStart = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const msLeft = BigInt(Math.max(0, monthEnd.getTime() - hourStart));
  const rest = days > 0n ? divideRounded(sum * msLeft, days * BigInt(DAY_MS)) : 0n;
  return {
    monthStart: iso(monthStart.getTime()),
    monthToDate: toMajor(monthToDate, digits),
    forecast: toMajor(sumMinor([monthToDate, Number(rest)]), digits),
    dailyRate: toMajor(Number(dailyRate), digits),
    daysInMonth: (monthEnd.getTime() - monthStart.getTime()) / DAY_MS,
  };
}
