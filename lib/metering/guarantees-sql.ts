import { sql, type SQL } from "drizzle-orm";

/**
 * Whether grant `g` is in force at an hour: it started at or before it and
 * has not ended. Borrowed use (borrowed.ts) and idle chargeback
 * (chargeback-query.ts) both read guarantees so, hour by hour.
 */
export const grantInForceSql = (hour: SQL): SQL => sql`g.starts_at <= ${hour} and (g.ends_at is null or g.ends_at > ${hour})`;
