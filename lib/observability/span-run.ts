import { SpanStatusCode, type Span } from "@opentelemetry/api";

/**
 * Awaits `work` inside an already started span and ends the span: a throw is
 * recorded on it as an exception with error status, then rethrown. Shared by
 * the portal's own spans (tracing.ts) and the database spans (db-spans.ts),
 * which tracing.ts imports: hence a file of its own.
 */
export async function endSpanAfter<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}
