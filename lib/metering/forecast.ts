/**
 * Month to date and a forecast to month end, from daily costs. The forecast
 * takes the average of the last seven complete days (fewer for a project with
 * less history) and carries it over the time left in the month: recent days
 * say more about the next ones than the month's start does.
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

export function monthStartOf(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export function nextMonthStartOf(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/**
 * @param daily cost per UTC day (YYYY-MM-DD) covering at least the month so far and the seven days before today
 */
export function forecastMonth(daily: readonly { day: string; cost: number }[], now: Date): MonthForecast {
  const monthStart = monthStartOf(now);
  const monthEnd = nextMonthStartOf(now);
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const byDay = new Map(daily.map((d) => [d.day, d.cost]));
  const iso = (t: number) => new Date(t).toISOString().slice(0, 10);

  let monthToDate = 0;
  for (let t = monthStart.getTime(); t <= today.getTime(); t += DAY_MS) monthToDate += byDay.get(iso(t)) ?? 0;

  // Complete days before today, at most seven, that the data covers (a young project has fewer).
  const firstDay = daily.length ? Math.min(...daily.map((d) => Date.parse(`${d.day}T00:00:00Z`))) : today.getTime();
  let sum = 0;
  let days = 0;
  for (let t = today.getTime() - DAY_MS; t >= today.getTime() - 7 * DAY_MS && t >= firstDay; t -= DAY_MS) {
    sum += byDay.get(iso(t)) ?? 0;
    days++;
  }
  const dailyRate = days > 0 ? sum / days : 0;
  // Carried over the time left in the month from now (today's spend so far is already in monthToDate).
  const daysLeft = (monthEnd.getTime() - now.getTime()) / DAY_MS;
  const forecast = monthToDate + dailyRate * daysLeft;
  return { monthStart: iso(monthStart.getTime()), monthToDate, forecast, dailyRate, daysInMonth: (monthEnd.getTime() - monthStart.getTime()) / DAY_MS };
}
