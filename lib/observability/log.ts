import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import { isSpanContextValid, trace } from "@opentelemetry/api";
import pino, { type DestinationStream, type Logger } from "pino";
import { z } from "zod";

/**
 * The process's one logger. Every line is a JSON object (LOG_FORMAT=json, the
 * default when stdout is not a terminal, as in a container) or a readable
 * `[allot] …` line (LOG_FORMAT=text, the default in a terminal), at LOG_LEVEL
 * and above. Each line carries what the code running it is doing, from an
 * AsyncLocalStorage the request and worker entry points fill in: the request
 * id of an HTTP request (request-log.ts), the change a reconcile worker is
 * applying, the periodic job that is running; and the trace and span ids of
 * the active span, so a line finds its trace.
 *
 * Kept on globalThis: Next bundles this module once per server layer, and the
 * request context set by the HTTP server's hook must be the one a route or a
 * page's code reads.
 */

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export const logLevelSchema = z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(", ")}` });
export const logFormatSchema = z.enum(["json", "text"], { message: "must be json or text" });
export type LogFormat = z.infer<typeof logFormatSchema>;

/** What a line is about, beyond its message. */
export interface LogContext {
  requestId?: string;
  changeId?: number;
  job?: string;
}

interface LogState {
  logger: Logger;
  context: AsyncLocalStorage<LogContext>;
}

const globalForLog = globalThis as unknown as { allotLog?: LogState };

/**
 * Read from the environment directly, not from config(): a bad configuration
 * must itself be logged. An invalid value falls back to the default here;
 * config() then refuses it, naming the variable.
 */
export interface LogSettings {
  level: (typeof LOG_LEVELS)[number];
  format: LogFormat;
  /** 1 for the server (stdout); the CLI logs on 2, stderr, keeping stdout for what a command prints (a token, a count). */
  fd: 1 | 2;
}

export function logSettings(env: Partial<Record<string, string>> = process.env, fd: 1 | 2 = 1): LogSettings {
  const terminal = Boolean((fd === 1 ? process.stdout : process.stderr).isTTY);
  const level = logLevelSchema.safeParse(env.LOG_LEVEL || "info");
  const format = logFormatSchema.safeParse(env.LOG_FORMAT || (terminal ? "text" : "json"));
  return { level: level.success ? level.data : "info", format: format.success ? format.data : "json", fd };
}

/** Context fields and the active span's ids, added to every line. */
function lineContext(context: AsyncLocalStorage<LogContext>): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...context.getStore() };
  const span = trace.getActiveSpan()?.spanContext();
  if (span && isSpanContextValid(span)) {
    fields.traceId = span.traceId;
    fields.spanId = span.spanId;
  }
  return fields;
}

const CONTEXT_KEYS = ["requestId", "changeId", "job"] as const;
const NOT_SHOWN_IN_TEXT = new Set(["level", "time", "pid", "hostname", "msg", "err", "traceId", "spanId"]);

/** One JSON line as a person reads it: `[allot] WARN message key=value …`, an error's stack below. */
export function textLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const level = typeof entry.level === "string" ? entry.level : "info";
  const fields = Object.entries(entry)
    .filter(([k]) => !NOT_SHOWN_IN_TEXT.has(k))
    .sort(([a], [b]) => (CONTEXT_KEYS.includes(b as never) ? 1 : 0) - (CONTEXT_KEYS.includes(a as never) ? 1 : 0))
    .map(([k, v]) => ` ${k}=${typeof v === "string" && !/\s/.test(v) ? v : JSON.stringify(v)}`)
    .join("");
  const err = entry.err as { stack?: string; message?: string } | undefined;
  const stack = err ? `\n${err.stack ?? err.message ?? JSON.stringify(err)}` : "";
  return `[allot] ${level === "info" ? "" : `${level.toUpperCase()} `}${typeof entry.msg === "string" ? entry.msg : ""}${fields}${stack}\n`;
}

/** Writes whole lines synchronously, so a line logged just before process.exit is not lost. */
function destination({ format, fd }: LogSettings): DestinationStream {
  if (format === "json") return pino.destination({ dest: fd, sync: true });
  return { write: (line: string) => void fs.writeSync(fd, textLine(line)) };
}

function createLogger(settings: LogSettings, context: AsyncLocalStorage<LogContext>, stream: DestinationStream = destination(settings)): Logger {
  return pino(
    {
      level: settings.level,
      messageKey: "msg",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => lineContext(context),
    },
    stream,
  );
}

function state(): LogState {
  if (!globalForLog.allotLog) {
    const context = new AsyncLocalStorage<LogContext>();
    globalForLog.allotLog = { context, logger: createLogger(logSettings(), context) };
  }
  return globalForLog.allotLog;
}

/** The logger; call it where the line is written (`log().info(…)`), never keep it in a module constant across tests. */
export function log(): Logger {
  return state().logger;
}

/** For code that reports through a `(message, error?)` callback (the metrics server, the jobs): with an error it is an error line. */
export function logLine(message: string, error?: unknown): void {
  if (error === undefined) log().info(message);
  else log().error({ err: error }, message);
}

/** Runs `work` with these fields on every line it logs, added to those already in force. */
export function withLogContext<T>(fields: LogContext, work: () => T): T {
  const { context } = state();
  return context.run({ ...context.getStore(), ...fields }, work);
}

/** From now on, log with these settings (the CLI: on stderr), or into `stream` (tests); the context in force is kept. */
export function configureLogger(settings: LogSettings, stream?: DestinationStream): Logger {
  const s = state();
  s.logger = createLogger(settings, s.context, stream);
  return s.logger;
}
