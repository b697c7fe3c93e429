import type { Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Histogram } from "prom-client";

/**
 * Request durations by route pattern, taken from the span Next opens around
 * every request (BaseServer.handleRequest): Next knows the matched route
 * (`/tenants/[tenant]/projects/[project]`, `/api/v1/tenants/[tenant]`), which
 * a wrapper around the HTTP server would not, and the raw path would give a
 * series per project. Requests that match no route (static files, 404s) are
 * "unmatched".
 */
const HANDLE_REQUEST = "BaseServer.handleRequest";

/** Whether a span is one Next opens around a request (the duration histogram's and the access line's source). */
export const isNextRequestSpan = (span: Pick<ReadableSpan, "attributes">): boolean => span.attributes["next.span_type"] === HANDLE_REQUEST;

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export function requestLabelsOf(span: Pick<ReadableSpan, "attributes">): { method: string; route: string; status: string } | null {
  const a = span.attributes;
  if (!isNextRequestSpan(span)) return null;
  const method = String(a["http.method"] ?? a["http.request.method"] ?? "").toUpperCase();
  const route = a["next.route"] ?? a["http.route"];
  return {
    method: METHODS.has(method) ? method : "other",
    route: typeof route === "string" && route.startsWith("/") ? route : "unmatched",
    status: String(a["http.status_code"] ?? a["http.response.status_code"] ?? "unknown"),
  };
}

export class RequestDurationProcessor implements SpanProcessor {
  constructor(private readonly histogram: Histogram<"method" | "route" | "status">) {}

  onStart(_span: Span, _context: Context): void {}

  onEnd(span: ReadableSpan): void {
    const labels = requestLabelsOf(span);
    if (!labels) return;
    const [seconds, nanos] = span.duration;
    this.histogram.observe(labels, seconds + nanos / 1e9);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
