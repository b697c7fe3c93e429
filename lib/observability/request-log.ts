import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { isNextRequestSpan } from "./http-metrics";
import { log, withLogContext } from "./log";

/**
 * A request id for every HTTP request, on every line logged while it is
 * served and on one access line when it ends. The id is the caller's
 * `X-Request-Id` when that is a plain token (a proxy or load balancer in front
 * usually sets one), else a fresh UUID; either way the response echoes it, and
 * the portal's code reads the cleaned value from the request header.
 *
 * Hooked where Node's HTTP server hands a request to Next (Server#emit
 * "request", as OpenTelemetry's HTTP instrumentation does), not in proxy.ts:
 * the proxy runs in a pass of its own, so a context it set would not reach the
 * page, route or action that serves the request, and it does not see static
 * files or the answers Next gives before it.
 */

/** 1 to 128 characters a log line, a header and a shell can carry as they are. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's id when it is safe to log and echo, else null (a repeated header arrives joined by ", " and is refused). */
export function acceptedRequestId(header: string | string[] | undefined): string | null {
  return typeof header === "string" && REQUEST_ID.test(header) ? header : null;
}

export function requestIdFor(header: string | string[] | undefined): string {
  return acceptedRequestId(header) ?? randomUUID();
}

/** The request being served, as the access line needs it; the trace ids are filled in when Next opens its request span. */
interface ServedRequest {
  requestId: string;
  traceId?: string;
  spanId?: string;
}

const globalForRequests = globalThis as unknown as { allotServedRequest?: AsyncLocalStorage<ServedRequest>; allotRequestLogInstalled?: boolean };
const served = (globalForRequests.allotServedRequest ??= new AsyncLocalStorage<ServedRequest>());

/** Probes, scrapes and static files: logged at debug, so a pod probed every few seconds does not drown its own log. */
const QUIET_PATH = /^\/(healthz|readyz|metrics)$|^\/_next\/static\/|^\/favicon\.ico$/;

/** A request's path as lines show it (here and in instrumentation.ts's error line). */
export function pathOnly(url: string | undefined): string {
  // The query is left out: it can hold what the caller did not mean to have logged.
  const path = (url ?? "/").split("?", 1)[0]!;
  return path.length > 512 ? `${path.slice(0, 512)}…` : path;
}

function logServed(request: ServedRequest, req: IncomingMessage, res: ServerResponse, startedAt: number): void {
  const path = pathOnly(req.url);
  const fields = {
    requestId: request.requestId,
    method: req.method,
    path,
    status: res.statusCode,
    durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
    // The request's own trace, not whatever span is active where the socket closes.
    traceId: request.traceId,
    spanId: request.spanId,
    ...(res.writableFinished ? {} : { aborted: true }),
  };
  if (QUIET_PATH.test(path)) log().debug(fields, "request");
  else log().info(fields, "request");
}

/** Installs the hook once per process (the portal server; not the CLI, which serves no pages). */
export function installRequestLog(): void {
  if (globalForRequests.allotRequestLogInstalled) return;
  globalForRequests.allotRequestLogInstalled = true;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- always called with the server as `this` (Reflect.apply below)
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== "request") return Reflect.apply(emit, this, [event, ...args]) as boolean;
    const [req, res] = args as [IncomingMessage, ServerResponse];
    const request: ServedRequest = { requestId: requestIdFor(req.headers["x-request-id"]) };
    req.headers["x-request-id"] = request.requestId;
    res.setHeader("X-Request-Id", request.requestId);
    const startedAt = performance.now();
    res.once("close", () => logServed(request, req, res, startedAt));
    return served.run(request, () => withLogContext({ requestId: request.requestId }, () => Reflect.apply(emit, this, [event, ...args]) as boolean));
  } as typeof emit;
}

/**
 * Notes the trace of the request being served: the first span Next opens for
 * it is the request's root (a proxy pass and the render share its trace).
 */
export class RequestTraceProcessor implements SpanProcessor {
  onStart(span: Span, _context: Context): void {
    const request = served.getStore();
    if (!request || request.traceId || !isNextRequestSpan(span)) return;
    const { traceId, spanId } = span.spanContext();
    request.traceId = traceId;
    request.spanId = spanId;
  }

  onEnd(_span: ReadableSpan): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
