import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { freePort } from "@/test/ports";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

/**
 * A real Prometheus for tests (Debian's `prometheus` package, run by hand):
 * the series are written as OpenMetrics, turned into TSDB blocks by
 * `promtool tsdb create-blocks-from openmetrics`, and served by a Prometheus
 * on a free 127.0.0.1 port with no scrape targets, so the data is exactly
 * what the test wrote.
 */

export interface RunningPrometheus {
  /** http://127.0.0.1:PORT */
  url: string;
  stop(): Promise<void>;
}

const run = promisify(execFile);

function onPath(binary: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, binary);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** The two binaries, or an error saying how to get them: the tests that need them fail rather than skip. */
export function prometheusBinaries(): { prometheus: string; promtool: string } {
  const prometheus = onPath("prometheus");
  const promtool = onPath("promtool");
  if (!prometheus || !promtool) {
    const missing = [prometheus ? null : "prometheus", promtool ? null : "promtool"].filter(Boolean).join(" and ");
    throw new Error(`${missing} not found on PATH: these tests run a real Prometheus. Install Debian's package (apt-get install -y prometheus); .ci/run does.`);
  }
  return { prometheus, promtool };
}

/** Blocks from the OpenMetrics text, then Prometheus serving them; resolves once /-/ready answers. */
export async function startPrometheusWith(openMetrics: string): Promise<RunningPrometheus> {
  const bin = prometheusBinaries();
  const dir = await mkdtemp(path.join(os.tmpdir(), "allot-prometheus-"));
  const input = path.join(dir, "series.om");
  const tsdb = path.join(dir, "tsdb");
  const configFile = path.join(dir, "prometheus.yml");
  await writeFile(input, openMetrics);
  await writeFile(configFile, "global:\n  scrape_interval: 1m\nscrape_configs: []\n");
  try {
    await run(bin.promtool, ["tsdb", "create-blocks-from", "openmetrics", input, tsdb], { maxBuffer: 16 * 2 ** 20 });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`promtool could not create blocks: ${(error as { stderr?: string }).stderr ?? String(error)}`);
  }
  return launch(bin.prometheus, dir, configFile, tsdb);
}

/**
 * A Prometheus with no data of its own that scrapes `target` (host:port, path /metrics) every
 * second as job "allot": for tests of what the portal's /metrics serves.
 */
export async function startPrometheusScraping(target: string): Promise<RunningPrometheus> {
  const bin = prometheusBinaries();
  const dir = await mkdtemp(path.join(os.tmpdir(), "allot-prometheus-"));
  const configFile = path.join(dir, "prometheus.yml");
  await writeFile(
    configFile,
    `global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: allot\n    static_configs:\n      - targets: [${JSON.stringify(target)}]\n`,
  );
  return launch(bin.prometheus, dir, configFile, path.join(dir, "tsdb"));
}

/** Prometheus on a free 127.0.0.1 port with this configuration and storage; resolves once /-/ready answers. */
async function launch(prometheus: string, dir: string, configFile: string, tsdb: string): Promise<RunningPrometheus> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    prometheus,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${tsdb}`,
      // The series are days old; the default 15 days keeps them, a longer retention leaves room.
      "--storage.tsdb.retention.time=30d",
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  const stop = async () => {
    process.off("exit", killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timeout = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timeout);
    }
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`prometheus exited before it was ready: ${stderr}`);
    }
    try {
      const response = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus was not ready at ${url} within 30 s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, stop };
}
