import { describe, expect, it } from "vitest";
import { periodicSchedule, type PeriodicJob } from "./periodic";

const NOW = new Date("2026-12-01T00:00:00Z");

function recording(name: string, o: Partial<PeriodicJob> & { fails?: boolean } = {}) {
  const runs: number[] = [];
  let t = 0;
  const job: PeriodicJob = {
    name,
    everyMs: o.everyMs ?? 1000,
    phase: o.phase ?? "before-reconcile",
    firstAfterInterval: o.firstAfterInterval,
    async run() {
      runs.push(t);
      if (o.fails) throw new Error(`${name} broke`);
      return o.run ? o.run(NOW) : null;
    },
  };
  return { job, runs, at: (ms: number) => (t = ms) };
}

describe("periodicSchedule", () => {
  it("runs each job at most once per interval, by the loop's own elapsed time", async () => {
    let elapsed = 0;
    const a = recording("a", { everyMs: 1000 });
    const schedule = periodicSchedule([a.job], () => {}, () => elapsed);
    for (const t of [0, 400, 999, 1000, 1500, 2100]) {
      elapsed = t;
      a.at(t);
      await schedule.runDue("before-reconcile", NOW);
    }
    expect(a.runs).toEqual([0, 1000, 2100]);
  });

  it("runs only the jobs of the phase asked for, in their order", async () => {
    const order: string[] = [];
    const job = (name: string, phase: PeriodicJob["phase"]): PeriodicJob => ({ name, everyMs: 0, phase, run: () => Promise.resolve((order.push(name), null)) });
    const schedule = periodicSchedule([job("expiry", "before-reconcile"), job("drift", "after-reconcile"), job("scan", "before-reconcile")], () => {}, () => 0);
    await schedule.runDue("before-reconcile", NOW);
    expect(order).toEqual(["expiry", "scan"]);
    await schedule.runDue("after-reconcile", NOW);
    expect(order).toEqual(["expiry", "scan", "drift"]);
  });

  it("waits one interval before the first run of a job that asks for it", async () => {
    let elapsed = 5000;
    const drift = recording("drift", { everyMs: 1000, firstAfterInterval: true });
    const schedule = periodicSchedule([drift.job], () => {}, () => elapsed);
    await schedule.runDue("before-reconcile", NOW);
    expect(drift.runs).toHaveLength(0);
    elapsed = 6000;
    await schedule.runDue("before-reconcile", NOW);
    expect(drift.runs).toHaveLength(1);
  });

  it("logs a failing job and still runs the others; the failed one waits its interval before it is tried again", async () => {
    let elapsed = 0;
    const lines: string[] = [];
    const broken = recording("broken", { everyMs: 1000, fails: true });
    const fine = recording("fine", { everyMs: 0, run: () => Promise.resolve("2 sent") });
    const schedule = periodicSchedule([broken.job, fine.job], (m, e) => lines.push(e ? `${m} (${(e as Error).message})` : m), () => elapsed);
    await schedule.runDue("before-reconcile", NOW);
    elapsed = 10;
    await schedule.runDue("before-reconcile", NOW);
    expect(broken.runs).toHaveLength(1);
    expect(fine.runs).toHaveLength(2);
    expect(lines).toEqual(["broken failed; trying again at its next interval (broken broke)", "fine: 2 sent", "fine: 2 sent"]);
  });
});
