import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { webhookDeliveries } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf } from "@/test/fixtures";
import { seededDatabase } from "@/test/tenancy";
import { createWebhook, deleteWebhook, listWebhooks } from "./webhook-commands";
import { deliverDueWebhooks, enqueueWebhookEvent } from "./webhooks";

/** Webhooks against a real HTTP receiver: signed bodies, retries with backoff, give-up after six tries. */
const NOW = new Date("2026-12-02T12:00:00.000Z");
const seeded = seededDatabase(new Date("2026-12-01T08:00:00.000Z"));
let db: Database;
let receiver: http.Server;
let url: string;
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let failNext = 0;

beforeAll(async () => {
  db = seeded.db;
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      if (failNext > 0) {
        failNext--;
        res.writeHead(503).end();
      } else res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describe(`webhooks (${databaseLabel()})`, () => {
  it("only platform admins manage them, and the secret is shown once", async () => {
    expect((await appErrorOf(executeCommand(createWebhook, await contextOf(db, "vision-admin", NOW), { url, events: "request.created" }))).code).toBe("forbidden");
    const bad = await appErrorOf(executeCommand(createWebhook, await contextOf(db, "platform-admin", NOW), { url: "ftp://x", events: "request.nope" }));
    expect(Object.keys(bad.fields!).sort()).toEqual(["events", "url"]);
    const hook = await executeCommand(createWebhook, await contextOf(db, "platform-admin", NOW), { url, events: "request.created, request.decided" });
    expect(hook.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const listed = await listWebhooks(await contextOf(db, "platform-admin", NOW));
    expect(JSON.stringify(listed)).not.toContain(hook.secret);
    expect(await listWebhooks(await contextOf(db, "data-scientist", NOW))).toBeNull();
    (globalThis as { hookSecret?: string }).hookSecret = hook.secret;
  });

  it("delivers subscribed events with a verifiable signature, retries failures with backoff", async () => {
    const secret = (globalThis as { hookSecret?: string }).hookSecret!;
    await enqueueWebhookEvent(db, "request.created", { text: "Dana asks for 4 × H100 on vision-lab/detector-training", requestId: "r1" }, NOW);
    await enqueueWebhookEvent(db, "request.applied", { text: "not subscribed" }, NOW);
    failNext = 1;
    expect(await deliverDueWebhooks(db, NOW)).toBe(1);
    const [retrying] = await db.select().from(webhookDeliveries);
    expect(retrying).toMatchObject({ status: "pending", attempts: 1, lastError: "HTTP 503" });
    expect(retrying!.nextAttemptAt.getTime()).toBe(NOW.getTime() + 30_000);
    expect(await deliverDueWebhooks(db, NOW)).toBe(0); // not due yet

    const later = new Date(NOW.getTime() + 31_000);
    expect(await deliverDueWebhooks(db, later)).toBe(1);
    const [done] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, retrying!.id));
    expect(done).toMatchObject({ status: "delivered", attempts: 2 });

    const last = received.at(-1)!;
    expect(JSON.parse(last.body)).toEqual({ event: "request.created", text: "Dana asks for 4 × H100 on vision-lab/detector-training", requestId: "r1" });
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(last.headers["x-allot-signature"]))!;
    expect(Number(t)).toBe(Math.floor(later.getTime() / 1000));
    expect(v1).toBe(crypto.createHmac("sha256", secret).update(`${t}.${last.body}`).digest("hex"));
    expect(last.headers["x-allot-event"]).toBe("request.created");
  });

  it("gives up after six attempts and says why", async () => {
    await enqueueWebhookEvent(db, "request.decided", { text: "decided" }, NOW);
    failNext = 10;
    let at = NOW;
    for (let i = 0; i < 6; i++) {
      await deliverDueWebhooks(db, at);
      at = new Date(at.getTime() + 60 * 60_000);
    }
    const rows = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.event, "request.decided"));
    expect(rows[0]).toMatchObject({ status: "failed", attempts: 6, lastError: "HTTP 503" });
    failNext = 0;
  });

  it("deleting a webhook drops its pending deliveries", async () => {
    const [hook] = (await listWebhooks(await contextOf(db, "platform-admin", NOW)))!;
    await executeCommand(deleteWebhook, await contextOf(db, "platform-admin", NOW), { webhookId: hook!.id });
    expect(await db.select().from(webhookDeliveries)).toEqual([]);
  });
});
