import http from "node:http";
import type { AddressInfo } from "node:net";
import { context as otelContext, trace } from "@opentelemetry/api";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config";
import { configureLogger, log, logSettings, textLine, withLogContext, type LogSettings } from "./log";
import { acceptedRequestId, installRequestLog, requestIdFor } from "./request-log";

/** What the logger wrote, one parsed JSON object per line. */
const lines: Record<string, unknown>[] = [];
const capture = { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) };
const useLogger = (settings: Partial<LogSettings> = {}) => configureLogger({ level: "info", format: "json", fd: 1, ...settings }, capture);

beforeEach(() => {
  lines.length = 0;
  useLogger();
});
afterAll(() => configureLogger(logSettings()));

describe("request ids", () => {
  const SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-".split("");

  it("keeps any id of 1 to 128 safe characters as it is", () => {
    fc.assert(fc.property(fc.array(fc.constantFrom(...SAFE), { minLength: 1, maxLength: 128 }), (chars) => acceptedRequestId(chars.join("")) === chars.join("")), { seed: 1304 });
  });

  it("refuses anything else: what it keeps is always a safe token", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (s) => {
        const kept = acceptedRequestId(s);
        return kept === null ? !/^[A-Za-z0-9._:-]{1,128}$/.test(s) : kept === s && /^[A-Za-z0-9._:-]{1,128}$/.test(s);
      }),
      { seed: 1304, numRuns: 2000 },
    );
    for (const hostile of ["", "a".repeat(129), "id with spaces", "abc\nforged line", "abc\r\n", '"}{"level":"fatal', "<script>", "é", "a,b", "a, b"]) expect(acceptedRequestId(hostile)).toBeNull();
    // Node joins a repeated header: two ids are not one.
    expect(acceptedRequestId(["a", "b"])).toBeNull();
  });

  it("makes a fresh UUID when the caller's is missing or refused", () => {
    expect(requestIdFor(undefined)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(requestIdFor("bad id")).not.toBe("bad id");
    expect(requestIdFor("bad id")).not.toBe(requestIdFor("bad id"));
    expect(requestIdFor("lb-7f3a")).toBe("lb-7f3a");
  });
});

describe("log lines", () => {
  it("are JSON objects with level, time and message", () => {
    log().info({ tenant: "vision-lab" }, "hello");
    expect(lines).toEqual([expect.objectContaining({ level: "info", msg: "hello", tenant: "vision-lab", time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown })]);
  });

  it("LOG_LEVEL filters: below the level nothing is written", () => {
    useLogger({ level: "warn" });
    log().debug("d");
    log().info("i");
    log().warn("w");
    log().error("e");
    expect(lines.map((l) => l.level)).toEqual(["warn", "error"]);
    useLogger({ level: "silent" });
    log().fatal("f");
    expect(lines).toHaveLength(2);
    useLogger({ level: "debug" });
    log().debug("d");
    expect(lines.at(-1)).toMatchObject({ level: "debug", msg: "d" });
  });

  it("carry the context they are written in, nested contexts adding to it", async () => {
    await withLogContext({ requestId: "req-1" }, async () => {
      log().info("outer");
      await withLogContext({ changeId: 42 }, async () => {
        await Promise.resolve();
        log().info("inner");
      });
      log().info("after");
    });
    log().info("outside");
    expect(lines.map((l) => [l.msg, l.requestId, l.changeId])).toEqual([
      ["outer", "req-1", undefined],
      ["inner", "req-1", 42],
      ["after", "req-1", undefined],
      ["outside", undefined, undefined],
    ]);
  });

  it("carry the active span's trace and span ids", () => {
    const provider = new NodeTracerProvider();
    provider.register();
    try {
      const tracer = provider.getTracer("test");
      tracer.startActiveSpan("work", (span) => {
        log().info("in a span");
        span.end();
        expect(lines.at(-1)).toMatchObject({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId });
      });
      log().info("no span");
      expect(lines.at(-1)).not.toHaveProperty("traceId");
    } finally {
      trace.disable();
      otelContext.disable();
    }
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  it("serialise an error with its type, message and stack", () => {
    log().error({ err: new TypeError("boom"), ref: "abc123" }, "unexpected error");
    expect(lines.at(-1)).toMatchObject({ level: "error", ref: "abc123", err: { type: "TypeError", message: "boom", stack: expect.stringContaining("TypeError: boom") as unknown } });
  });

  it("read as text for a person: level, message, fields, stack", () => {
    expect(textLine(JSON.stringify({ level: "info", time: "t", pid: 1, msg: "database ready" }))).toBe("[allot] database ready\n");
    expect(textLine(JSON.stringify({ level: "warn", msg: "change not applied", reason: "Conflict", changeId: 7, error: "two words" }))).toBe('[allot] WARN change not applied changeId=7 reason=Conflict error="two words"\n');
    expect(textLine(JSON.stringify({ level: "error", msg: "x", err: { stack: "Error: x\n    at f" } }))).toBe("[allot] ERROR x\nError: x\n    at f\n");
  });
});

describe("LOG_LEVEL and LOG_FORMAT", () => {
  it("default to info, and to text in a terminal and JSON elsewhere", () => {
    expect(logSettings({})).toMatchObject({ level: "info" });
    expect(logSettings({ LOG_LEVEL: "debug", LOG_FORMAT: "text" })).toMatchObject({ level: "debug", format: "text" });
    expect(logSettings({ LOG_FORMAT: "json" })).toMatchObject({ format: "json" });
  });

  it("a bad value stops start-up naming the variable (the logger falls back meanwhile)", () => {
    expect(logSettings({ LOG_LEVEL: "verbose", LOG_FORMAT: "xml" })).toMatchObject({ level: "info", format: "json" });
    expect(() => parseConfig({ LOG_LEVEL: "verbose" })).toThrow(/LOG_LEVEL.*must be one of trace, debug, info, warn, error, fatal, silent/);
    expect(() => parseConfig({ LOG_FORMAT: "xml" })).toThrow(/LOG_FORMAT.*must be json or text/);
  });
});

describe("the HTTP hook", () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    installRequestLog();
    server = http.createServer((req, res) => {
      log().info({ seen: req.headers["x-request-id"] }, "handling");
      setTimeout(() => {
        res.statusCode = req.url === "/missing" ? 404 : 200;
        res.end("ok");
      }, 5);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const accessLine = async (id: string) => {
    for (let i = 0; i < 50 && !lines.some((l) => l.msg === "request" && l.requestId === id); i++) await new Promise((r) => setTimeout(r, 10));
    return lines.find((l) => l.msg === "request" && l.requestId === id);
  };

  it("echoes a caller's id and puts it on every line of the request and on its access line", async () => {
    const response = await fetch(`${base}/tenants/vision-lab?token=secret`, { headers: { "X-Request-Id": "lb-1234.abc" } });
    expect(response.headers.get("x-request-id")).toBe("lb-1234.abc");
    expect(await accessLine("lb-1234.abc")).toMatchObject({ level: "info", method: "GET", path: "/tenants/vision-lab", status: 200, durationMs: expect.any(Number) as unknown });
    // The handler sees the id in the header and in its log context alike; the query is never logged.
    expect(lines.find((l) => l.msg === "handling")).toMatchObject({ requestId: "lb-1234.abc", seen: "lb-1234.abc" });
    expect(JSON.stringify(lines)).not.toContain("secret");
  });

  it("replaces a hostile id with its own, and the handler only ever sees the replacement", async () => {
    const response = await fetch(`${base}/missing`, { headers: { "X-Request-Id": '"}{"level":"fatal","msg":"forged' } });
    const id = response.headers.get("x-request-id")!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await accessLine(id)).toMatchObject({ status: 404, path: "/missing" });
    expect(lines.find((l) => l.msg === "handling")).toMatchObject({ requestId: id, seen: id });
    expect(lines.some((l) => l.level === "fatal")).toBe(false);
  });

  it("logs probes at debug, so the default level leaves them out", async () => {
    const response = await fetch(`${base}/healthz`, { headers: { "X-Request-Id": "probe-1" } });
    expect(response.headers.get("x-request-id")).toBe("probe-1");
    await new Promise((r) => setTimeout(r, 50));
    expect(lines.some((l) => l.msg === "request" && l.requestId === "probe-1")).toBe(false);
    useLogger({ level: "debug" });
    await fetch(`${base}/healthz`, { headers: { "X-Request-Id": "probe-2" } });
    expect(await accessLine("probe-2")).toMatchObject({ level: "debug", path: "/healthz" });
  });

  it("gives concurrent requests each their own id", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `c-${i}`);
    await Promise.all(ids.map((id) => fetch(`${base}/x`, { headers: { "X-Request-Id": id } }).then((r) => r.text())));
    for (const id of ids) await accessLine(id);
    const handled = lines.filter((l) => l.msg === "handling");
    expect(handled).toHaveLength(20);
    for (const l of handled) expect(l.requestId).toBe(l.seen);
  });
});
