import { SpanKind, trace } from "@opentelemetry/api";
import { PgPreparedQuery } from "drizzle-orm/pg-core";
import { endSpanAfter } from "./span-run";

/**
 * Every SQL statement drizzle sends, on postgres.js and PGlite alike, goes
 * through PgPreparedQuery.queryWithCache(queryString, params, run): the one
 * place both drivers share, inside transactions too (the transaction's
 * client runs the same prepared queries). Wrapping it there makes each
 * statement a span `db <OPERATION>` under the active request or command span,
 * without touching the drivers or how transactions are opened.
 *
 * Installed only when spans are exported (registerTracing with an OTLP
 * endpoint): without one the prototype stays as drizzle ships it, so the
 * path costs nothing. The statement text is recorded, bounded; parameters
 * never are (they carry user data).
 */
export const DB_QUERY_TEXT_MAX = 2048;

const installed = Symbol.for("allot.dbSpans");
type Patched = { [installed]?: true; queryWithCache: (queryString: string, params: unknown[], run: () => Promise<unknown>) => Promise<unknown> };

/** The statement's first keyword (SELECT, INSERT, WITH, BEGIN…), upper case. */
export function dbOperation(queryString: string): string {
  return /^\s*([A-Za-z]+)/.exec(queryString)?.[1]?.toUpperCase() ?? "QUERY";
}

export function installDbSpans(): void {
  const proto = PgPreparedQuery.prototype as unknown as Patched;
  if (proto[installed]) return;
  const original = proto.queryWithCache;
  proto.queryWithCache = function (this: unknown, queryString, params, run) {
    const operation = dbOperation(queryString);
    return trace.getTracer("allot").startActiveSpan(
      `db ${operation}`,
      {
        kind: SpanKind.CLIENT,
        attributes: { "db.system.name": "postgresql", "db.operation.name": operation, "db.query.text": queryString.slice(0, DB_QUERY_TEXT_MAX) },
      },
      (span) => endSpanAfter(span, () => original.call(this, queryString, params, run)),
    );
  };
  proto[installed] = true;
}
