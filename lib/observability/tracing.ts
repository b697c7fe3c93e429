import { trace, type Attributes } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { installDbSpans } from "./db-spans";
import { RequestDurationProcessor } from "./http-metrics";
import { metrics } from "./metrics";
import { RequestTraceProcessor } from "./request-log";
import { endSpanAfter } from "./span-run";

/**
 * One tracer provider per process, registered before Next serves a request.
 * Next reports each request as a span once a provider exists; the request
 * duration histogram is read from those spans (http-metrics.ts). With
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set,
 * every span is also exported over OTLP/HTTP (JSON) in batches: HTTP requests,
 * commands, database statements and cluster API calls. The exporter reads the standard OTEL_*
 * variables itself (endpoint, headers, timeout); OTEL_SERVICE_NAME names the
 * service (default allot).
 */
const globalForTracing = globalThis as unknown as { allotTracerProvider?: NodeTracerProvider };

/** Whether spans leave the process: the standard variables say where to. */
export function otlpEndpointConfigured(env: Partial<Record<string, string>> = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export function registerTracing(env: Partial<Record<string, string>> = process.env): NodeTracerProvider {
  if (globalForTracing.allotTracerProvider) return globalForTracing.allotTracerProvider;
  const spanProcessors: SpanProcessor[] = [new RequestDurationProcessor(metrics().httpDuration), new RequestTraceProcessor()];
  if (otlpEndpointConfigured(env)) {
    spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
    // Database spans only when they leave the process: a span per statement is
    // not free, and nothing but the exporter reads them (db-spans.ts).
    installDbSpans();
  }
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || "allot", "service.version": process.env.npm_package_version ?? "unreleased" }),
    spanProcessors,
  });
  provider.register();
  globalForTracing.allotTracerProvider = provider;
  return provider;
}

/** The tracer for the portal's own spans (commands, cluster calls). */
export function tracer() {
  return trace.getTracer("allot");
}

/**
 * Runs `work` as the active span `name`: what it calls becomes its children,
 * a throw marks the span as an error (with the exception recorded) and is
 * rethrown. Without a registered provider this costs next to nothing.
 */
export function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, (span) => endSpanAfter(span, work));
}

/** Sends the spans still queued (on shutdown), then stops the provider. */
export async function shutdownTracing(): Promise<void> {
  const provider = globalForTracing.allotTracerProvider;
  globalForTracing.allotTracerProvider = undefined;
  await provider?.shutdown();
}
