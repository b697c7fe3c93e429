import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { RequestDurationProcessor, requestLabelsOf } from "./http-metrics";

/** Spans shaped as Next 16 reports a request (BaseServer.handleRequest), turned into the duration histogram. */
describe("request duration from Next's request spans", () => {
  const nextRequestSpan = { "next.span_type": "BaseServer.handleRequest", "http.method": "GET", "http.status_code": 401, "next.route": "/api/v1/tenants/[tenant]" };

  it("labels by method, route pattern and status; other spans and odd values are kept bounded", () => {
    expect(requestLabelsOf({ attributes: nextRequestSpan })).toEqual({ method: "GET", route: "/api/v1/tenants/[tenant]", status: "401" });
    expect(requestLabelsOf({ attributes: { "next.span_type": "AppRender.getBodyResult" } })).toBeNull();
    expect(requestLabelsOf({ attributes: { "next.span_type": "BaseServer.handleRequest", "http.method": "BREW", "http.status_code": 404 } })).toEqual({ method: "other", route: "unmatched", status: "404" });
  });

  it("observes each request span's duration once", async () => {
    const registry = new Registry();
    const histogram = new Histogram({ name: "t_http_request_duration_seconds", help: "t", labelNames: ["method", "route", "status"], registers: [registry] });
    const provider = new BasicTracerProvider({ spanProcessors: [new RequestDurationProcessor(histogram)] });
    const tracer = provider.getTracer("test");
    const start = Date.now();
    tracer.startSpan("GET /api/v1/tenants/[tenant]", { attributes: nextRequestSpan, startTime: start }).end(start + 250);
    tracer.startSpan("render", { attributes: { "next.span_type": "AppRender.getBodyResult" } }).end();
    const text = await registry.metrics();
    expect(text).toContain('t_http_request_duration_seconds_count{method="GET",route="/api/v1/tenants/[tenant]",status="401"} 1');
    expect(text).toContain('t_http_request_duration_seconds_sum{method="GET",route="/api/v1/tenants/[tenant]",status="401"} 0.25');
    expect(text).not.toContain("render");
    await provider.shutdown();
  });
});
