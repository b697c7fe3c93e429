import { describe, expect, it } from "vitest";
import { isDraining } from "./draining";
import { shutDown, shutdownSteps, type ShutdownStep } from "./shutdown";

const never = () => new Promise<void>(() => {});

describe("shutDown", () => {
  it("runs every step in order and exits 0", async () => {
    const order: string[] = [];
    const steps: ShutdownStep[] = ["worker", "database"].map((name) => ({ name, run: () => Promise.resolve(void order.push(name)) }));
    await expect(shutDown(steps, () => {})).resolves.toBe(0);
    expect(order).toEqual(["worker", "database"]);
  });

  it("exits 1 naming the step that failed, and still runs the next (the database is closed)", async () => {
    const logged: string[] = [];
    let closed = false;
    const steps: ShutdownStep[] = [
      { name: "worker", run: () => Promise.reject(new Error("pass failed")) },
      { name: "database", run: () => Promise.resolve(void (closed = true)) },
    ];
    await expect(shutDown(steps, (m) => logged.push(m))).resolves.toBe(1);
    expect(closed).toBe(true);
    expect(logged.join()).toMatch(/worker: pass failed/);
  });

  it("gives up at the deadline, naming the step that hung", async () => {
    const logged: string[] = [];
    const started = Date.now();
    await expect(shutDown([{ name: "reconcile worker", run: never }], (m) => logged.push(m), 50)).resolves.toBe(1);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(logged.join()).toMatch(/reconcile worker did not stop within 0.05 s/);
  });
});

describe("the shutdown order", () => {
  it("turns readiness false first, stops the worker before the drain, and closes the database last", () => {
    expect(shutdownSteps(3000).map((s) => s.name)).toEqual(["readiness", "reconcile worker", "drain", "traces", "database"]);
  });

  it("readiness answers 503 draining from the first step on, without asking the database", async () => {
    const { GET } = await import("@/app/readyz/route");
    expect(isDraining()).toBe(false);
    await shutdownSteps(0)[0]!.run();
    expect(isDraining()).toBe(true);
    const response = await GET();
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: "draining" });
  });

  it("the drain step waits the drain period", async () => {
    const started = Date.now();
    await shutdownSteps(120)[2]!.run();
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });
});
