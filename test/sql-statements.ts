import { PgPreparedQuery } from "drizzle-orm/pg-core";

/**
 * Records every SQL statement drizzle sends while a recording is open, on
 * PGlite and postgres.js alike, through the one method both drivers share
 * (PgPreparedQuery.queryWithCache, the same hook as lib/observability/db-spans.ts).
 * Tests use it to bound how many statements a request costs; bench/spend-api.ts
 * to replay a request's own statements on raw postgres.js.
 *
 * Each statement carries `wave`: statements of one wave were all sent before
 * any of them answered (a Promise.all), the next wave only after an answer.
 */
export type RecordedStatement = { text: string; params: unknown[]; wave: number };

const installed = Symbol.for("allot.sqlStatementRecorder");
type Patched = { [installed]?: true; queryWithCache: (queryString: string, params: unknown[], run: () => Promise<unknown>) => Promise<unknown> };

let current: { statements: RecordedStatement[]; wave: number; answeredInWave: boolean } | null = null;

function install(): void {
  const proto = PgPreparedQuery.prototype as unknown as Patched;
  if (proto[installed]) return;
  const original = proto.queryWithCache;
  proto.queryWithCache = function (this: unknown, queryString, params, run) {
    const recording = current;
    if (!recording) return original.call(this, queryString, params, run);
    if (recording.answeredInWave) {
      recording.wave += 1;
      recording.answeredInWave = false;
    }
    recording.statements.push({ text: queryString, params: [...params], wave: recording.wave });
    return original.call(this, queryString, params, run).finally(() => {
      if (current === recording) recording.answeredInWave = true;
    });
  };
  proto[installed] = true;
}

/** Run `fn` and return its result with every statement it sent (recordings do not nest). */
export async function recordStatements<T>(fn: () => Promise<T>): Promise<{ result: T; statements: RecordedStatement[] }> {
  install();
  if (current) throw new Error("recordStatements does not nest");
  const recording = { statements: [] as RecordedStatement[], wave: 0, answeredInWave: false };
  current = recording;
  try {
    const result = await fn();
    return { result, statements: recording.statements };
  } finally {
    current = null;
  }
}
