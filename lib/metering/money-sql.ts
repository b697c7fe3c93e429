import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { config } from "@/lib/config";
import { minorDigits, roundMoney } from "@/lib/money";

/**
 * The money rule (lib/money.ts) on the database side. A charge line (one
 * project, resource and UTC day of the rollup, or one hour in hourly views)
 * is rounded to the minor unit where it is read, and sums add the rounded
 * lines. PostgreSQL's round(numeric, n) rounds half away from zero, the same
 * as toMinor, and the sums stay exact numeric until they reach toMinor.
 */

/** Decimal places of the configured currency's minor unit. */
export const moneyDigits = (): number => minorDigits(config().currency);

/** One charge line's cost, rounded once. */
export const lineCostSql = (cost: SQLWrapper, digits: number): SQL => sql`round(${cost}, ${sql.raw(String(Math.trunc(digits)))})`;

/** A sum of rounded lines as SQL returns it (exact decimal text), as a report's number. */
export const moneyFromSql = (text: string | null | undefined, digits: number): number => roundMoney(text ?? "0", digits);
