import { trace } from "@opentelemetry/api";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { RequestDurationProcessor } from "./http-metrics";
import { metrics } from "./metrics";

/**
 * One tracer provider per process, registered before Next serves a request.
 * Next reports each request as a span once a provider exists; the request
 * duration histogram is read from those spans (http-metrics.ts).
 */
const globalForTracing = globalThis as unknown as { allotTracerProvider?: NodeTracerProvider };

export function registerTracing(): NodeTracerProvider {
  if (globalForTracing.allotTracerProvider) return globalForTracing.allotTracerProvider;
  const provider = new NodeTracerProvider({ spanProcessors: [new RequestDurationProcessor(metrics().httpDuration)] });
  provider.register();
  globalForTracing.allotTracerProvider = provider;
  return provider;
}

/** The tracer for the portal's own spans (commands, cluster calls). */
export function tracer() {
  return trace.getTracer("allot");
}

export async function shutdownTracing(): Promise<void> {
  const provider = globalForTracing.allotTracerProvider;
  globalForTracing.allotTracerProvider = undefined;
  await provider?.shutdown();
}
