import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeCommand } from "@/lib/auth/command";
import { kubeClientFromConfig, kubeConfigFor } from "@/lib/cluster/kube-client";
import { createProject } from "@/lib/tenancy/commands/create-project";
import { databaseLabel } from "@/test/database";
import { contextOf } from "@/test/fixtures";
import { startStandInApiServer, type StandInApiServer } from "@/test/kube-api/server";
import { seededDatabase } from "@/test/tenancy";
import { inSpan, otlpEndpointConfigured, registerTracing, shutdownTracing } from "./tracing";

/**
 * Traces leave the process over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set: checked against a receiver on loopback that keeps what it is sent, as a
 * collector would, with a command and a cluster call made under one parent,
 * and the command's SQL statements as database spans under the command.
 */
type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: { key: string; value: OtlpValue }[]; status?: { code?: number }; events?: { name: string }[] };
type OtlpExport = { resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] };

const NOW = new Date("2026-11-20T10:00:00Z");
const seeded = seededDatabase(NOW);
const exports: { path: string; contentType: string | undefined; body: OtlpExport }[] = [];
let receiver: http.Server;
let api: StandInApiServer;

const attr = (s: OtlpSpan, key: string) => s.attributes?.find((a) => a.key === key)?.value.stringValue;
const spans = () => exports.flatMap((e) => e.body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      exports.push({ path: req.url ?? "", contentType: req.headers["content-type"], body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  api = await startStandInApiServer();
});

afterAll(async () => {
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  await shutdownTracing();
  await api?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe(`OpenTelemetry traces over OTLP (${databaseLabel()})`, () => {
  it("exports nothing unless an endpoint is configured", () => {
    expect(otlpEndpointConfigured({})).toBe(false);
    expect(otlpEndpointConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(otlpEndpointConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(true);
  });

  it("sends a command's span and a cluster call's span, children of the span they ran in, to the endpoint; a refused command is an error span", async () => {
    const provider = registerTracing();
    const admin = await contextOf(seeded.db, "platform-admin", NOW);
    const client = kubeClientFromConfig(kubeConfigFor(api.url));
    await inSpan("test request", {}, async () => {
      await executeCommand(createProject, admin, { tenant: "vision-lab", name: "Traced", slug: "traced", description: "" });
      await client.read({ apiVersion: "v1", kind: "Namespace", name: "kube-system" });
      await expect(executeCommand(createProject, admin, { tenant: "vision-lab", name: "Bad", slug: "Not A Slug", description: "" })).rejects.toThrow();
    });
    await provider.forceFlush();

    expect(exports.length).toBeGreaterThan(0);
    expect(exports.every((e) => e.path === "/v1/traces" && e.contentType?.startsWith("application/json"))).toBe(true);
    const service = exports[0]!.body.resourceSpans[0]!.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue;
    expect(service).toBe("allot");

    const parent = spans().find((s) => s.name === "test request")!;
    const commands = spans().filter((s) => s.name === `command ${createProject.name}`);
    const read = spans().find((s) => s.name === "kube-api read Namespace")!;
    expect(commands).toHaveLength(2);
    expect(read).toBeDefined();
    for (const child of [...commands, read]) {
      expect(child.traceId).toBe(parent.traceId);
      expect(child.parentSpanId).toBe(parent.spanId);
    }
    expect(attr(commands[0]!, "allot.command")).toBe(createProject.name);
    expect(attr(commands[0]!, "allot.principal.kind")).toBe("user");
    expect(commands[0]!.status?.code ?? 0).not.toBe(2);
    expect(commands[1]!.status?.code).toBe(2); // ERROR: the invalid slug
    expect(commands[1]!.events?.map((e) => e.name)).toContain("exception");

    // Every statement the command sent is a db span under the command's span,
    // with the statement text and never its parameters (the project's name).
    const db = spans().filter((s) => s.name.startsWith("db "));
    const underCommand = db.filter((s) => s.parentSpanId === commands[0]!.spanId);
    expect(underCommand.map((s) => s.name)).toContain("db INSERT");
    const insert = underCommand.find((s) => s.name === "db INSERT")!;
    expect([attr(insert, "db.system.name"), attr(insert, "db.operation.name")]).toEqual(["postgresql", "INSERT"]);
    expect(attr(insert, "db.query.text")).toMatch(/^insert into .*\$1/i);
    expect(db.some((s) => attr(s, "db.query.text")?.includes("Traced"))).toBe(false);
    expect([attr(read, "k8s.operation"), attr(read, "k8s.kind"), attr(read, "k8s.object.name"), attr(read, "server.address")]).toEqual(["read", "Namespace", "kube-system", api.url]);
  });
});
