/**
 * Benchmark: peak memory (RSS) and speed of the platform's FOCUS CSV export on the scale data
 * (bench/scale-data.ts: 10,000 projects with a year of daily usage), streamed as the portal
 * serves it (focusCsvFile: a day, or a month, of the window at a time) against the reference of
 * the same run, the whole file built in memory first (focusExport + focusCsv, as the export
 * was). Each case runs in a process of its own, so its peak RSS is its own. Run on demand:
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/allot_scale npm run bench:export-memory
 *   … npm run bench:export-memory -- --cases day:30,month:365,day:365:streamed
 *   … npm run bench:export-memory -- --tenants 4 --projects 200     # on a smaller platform
 *
 * A case is granularity:days[:streamed|:whole]; without the third part both ways run. A year by
 * day is about 12 M rows (several GB of CSV), more than one JavaScript string can hold: built
 * whole it cannot finish, so the default runs it streamed only.
 */
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { eq } from "drizzle-orm";
import { openDatabase } from "@/db/client";
import { users } from "@/db/schema";
import { loadActor } from "@/lib/auth/load-actor";
import { focusCsv } from "@/lib/metering/focus";
import { focusCsvFile, focusExport } from "@/lib/metering/focus-query";
import { moneyDigits } from "@/lib/metering/money-sql";
import { resolveWindow, spendQueryInput } from "@/lib/metering/window";
import { ensureScaleData, SCALE_ADMIN_EMAIL } from "./scale-data";

const { values: args } = parseArgs({
  options: {
    cases: { type: "string", default: "month:365,day:30,day:365:streamed" },
    // The scale data's shape, as bench:scale-data takes it (a database built to another shape is built again).
    tenants: { type: "string" },
    projects: { type: "string" },
    // Internal: run one case in this process and print its figures as JSON.
    "one-case": { type: "string" },
  },
});

type Way = "streamed" | "whole";
interface Figures {
  way: Way;
  granularity: string;
  days: number;
  rows: number;
  bytes: number;
  seconds: number;
  peakRssMiB: number;
  error?: string;
}

async function runCase(url: string, granularity: "day" | "month", days: number, way: Way, lastDay: string): Promise<Figures> {
  const handle = openDatabase({ kind: "postgres", url });
  const db = handle.db;
  const [admin] = await db.select({ id: users.principalId }).from(users).where(eq(users.email, SCALE_ADMIN_EMAIL));
  const actor = await loadActor(db, admin!.id, []);
  // The window is the scale data's last `days` days.
  const now = new Date();
  const to = lastDay;
  const from = new Date(Date.parse(`${lastDay}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const resolved = resolveWindow(spendQueryInput.parse({ range: "custom", from, to, granularity }), now);
  if (!("window" in resolved)) throw new Error(`window ${from}..${to} does not resolve`);
  const ctx = { actor: actor!, db, now };
  const started = performance.now();
  let bytes = 0;
  let rows = 0;
  try {
    if (way === "whole") {
      const exported = await focusExport(ctx, { kind: "platform" }, resolved.window);
      const csv = focusCsv(exported.rows, moneyDigits());
      rows = exported.rows.length;
      bytes = Buffer.byteLength(csv);
    } else {
      const file = await focusCsvFile(ctx, { kind: "platform" }, resolved.window);
      const reader = file.csv.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        bytes += r.value.byteLength;
        for (const b of r.value) if (b === 10) rows++;
      }
      rows -= 1; // the header
    }
  } catch (error) {
    return { way, granularity, days, rows, bytes, seconds: (performance.now() - started) / 1000, peakRssMiB: process.resourceUsage().maxRSS / 1024, error: String(error).slice(0, 160) };
  } finally {
    await handle.close();
  }
  return { way, granularity, days, rows, bytes, seconds: (performance.now() - started) / 1000, peakRssMiB: process.resourceUsage().maxRSS / 1024 };
}

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("Set DATABASE_URL to a local PostgreSQL database holding (or to hold) the scale data.");
  if (args["one-case"]) {
    const [granularity, days, way, lastDay] = args["one-case"].split(":");
    console.log(JSON.stringify(await runCase(url, granularity as "day" | "month", Number(days), way as Way, lastDay!)));
    return;
  }
  const tenants = args.tenants ? Number(args.tenants) : undefined;
  const shape = { ...(tenants ? { tenants } : {}), ...(args.projects ? { projectsPerTenant: Math.max(1, Math.round(Number(args.projects) / (tenants ?? 200))) } : {}) };
  const data = await ensureScaleData(url, { shape });
  const lastDay = new Date(Date.parse(data.to) - 86_400_000).toISOString().slice(0, 10);
  const projects = data.shape.tenants * data.shape.projectsPerTenant;
  console.log(`[bench:export-memory] platform FOCUS CSV on the scale data (${projects.toLocaleString("en-US")} projects, daily usage ${data.from.slice(0, 10)} to ${lastDay}); each case in its own process`);
  console.log(`${"case".padEnd(16)} ${"way".padEnd(9)} ${"rows".padStart(11)} ${"MB".padStart(8)} ${"s".padStart(7)} ${"rows/s".padStart(9)} ${"peak RSS MiB".padStart(13)}`);
  for (const spec of args.cases.split(",")) {
    const [granularity, days, only] = spec.split(":");
    for (const way of (only ? [only] : ["streamed", "whole"]) as Way[]) {
      const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, "--one-case", `${granularity}:${days}:${way}:${lastDay}`], { env: process.env, encoding: "utf8", maxBuffer: 1 << 20 });
      const line = child.stdout.trim().split("\n").at(-1) ?? "";
      let f: Figures | null = null;
      try {
        f = JSON.parse(line) as Figures;
      } catch {
        // A case that ran out of memory dies without its figures: say how.
        console.log(`${`${granularity} × ${days} d`.padEnd(16)} ${way.padEnd(9)} failed: exit ${child.status ?? child.signal}; ${child.stderr.trim().split("\n").at(-1)?.slice(0, 120) ?? ""}`);
        continue;
      }
      const note = f.error ? `  failed: ${f.error}` : "";
      console.log(
        `${`${granularity} × ${days} d`.padEnd(16)} ${way.padEnd(9)} ${f.rows.toLocaleString("en-US").padStart(11)} ${(f.bytes / 1e6).toFixed(1).padStart(8)} ${f.seconds.toFixed(1).padStart(7)} ${Math.round(f.rows / f.seconds).toLocaleString("en-US").padStart(9)} ${f.peakRssMiB.toFixed(0).padStart(13)}${note}`,
      );
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
