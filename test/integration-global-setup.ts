import { dropWorkerDatabases } from "./database";

/**
 * The integration project's global setup: its teardown drops the per-worker PostgreSQL databases
 * that test/database.ts made beside DATABASE_URL's, so a run leaves only what it found.
 */
export default function setup(): () => Promise<void> {
  return async () => {
    const url = process.env.DATABASE_URL;
    if (url) await dropWorkerDatabases(url);
  };
}
