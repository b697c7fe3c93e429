// Running the built image without a container runtime (none works in this sandbox): a working
// copy of the image's file system (buildah from + mount), entered with unshare and chroot as the
// image's user, root read-only (run-contained.sh). Used by `npm run image:check`.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { STORAGE, buildah, imageConfig } from "./buildah.mjs";

const RUNNER = path.join(path.dirname(new URL(import.meta.url).pathname), "run-contained.sh");

/** A writable working copy of the image, mounted on the host; remove() when done. */
export function workingCopy(image) {
  const config = imageConfig(image);
  const id = buildah(["from", "--pull-never", image]);
  const rootfs = buildah(["mount", id]);
  return {
    config,
    rootfs,
    remove() {
      spawnSync("buildah", [...STORAGE, "umount", id], { stdio: "ignore" });
      spawnSync("buildah", [...STORAGE, "rm", id], { stdio: "ignore" });
    },
  };
}

/** "10001:10001" (or "10001") as numbers; null for a user given by name, which runAsNonRoot cannot verify. */
export function numericUser(user) {
  const match = /^(\d+)(?::(\d+))?$/.exec(user ?? "");
  return match ? { uid: Number(match[1]), gid: Number(match[2] ?? match[1]) } : null;
}

const running = new Set();
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/**
 * Start the image's entry point with `args` (its CMD when empty), or `command` instead of both
 * (as a Kubernetes `command:` does), with the image's environment plus
 * `env`, and `dataDir` mounted at /var/lib/allot (null: none). Resolves at once to a handle with
 * the host pid of the contained PID 1, its output so far, and a promise of its exit.
 */
export function startContained(copy, { args = [], command: override = null, env = {}, dataDir = null } = {}) {
  const { config, rootfs } = copy;
  const user = numericUser(config.User);
  if (!user) throw new Error(`the image's user "${config.User}" is not numeric`);
  const environment = { ...Object.fromEntries((config.Env ?? []).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)])), ...env };
  const command = override ?? [...(config.Entrypoint ?? []), ...(args.length > 0 ? args : (config.Cmd ?? []))];
  const child = spawn(
    "unshare",
    [
      "--mount",
      "--pid",
      "--fork",
      "--kill-child",
      "sh",
      RUNNER,
      rootfs,
      dataDir ?? "-",
      "--",
      "env",
      "-i",
      ...Object.entries(environment).map(([k, v]) => `${k}=${v}`),
      "chroot",
      `--userspec=${user.uid}:${user.gid}`,
      `--groups=${user.gid}`,
      rootfs,
      ...command,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  running.add(child);
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => {
    running.delete(child);
    resolve({ code, signal });
  }));
  return {
    exited,
    output: () => output,
    /** The host pid of the process that is PID 1 inside (unshare's only child). */
    pid() {
      try {
        const children = fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
        return children.length === 1 ? Number(children[0]) : null;
      } catch {
        return null;
      }
    },
    kill: (signal = "SIGKILL") => child.kill(signal),
  };
}

/** Run to the end (a CLI command); resolves to its exit code and output. */
export async function runContained(copy, options) {
  const run = startContained(copy, options);
  const { code } = await run.exited;
  return { code, output: run.output() };
}

/**
 * Run `script` (given `args` as process.argv.slice(1)) with the image's node inside the namespaces of the contained process `pid`, as
 * uid:gid; resolves to its standard output (the probe of what may be written).
 */
export function nodeInside(pid, { uid, gid }, script, args, imagePath) {
  const result = spawnSync(
    "nsenter",
    ["--target", String(pid), "--mount", "--pid", "--root", "--wd", `--setgid=${gid}`, `--setuid=${uid}`, "--", "node", "-e", script, ...args],
    { encoding: "utf8", env: { PATH: imagePath } },
  );
  if (result.status !== 0) throw new Error(`probe failed: ${result.stderr}`);
  return result.stdout.trim();
}

/** Poll url until it answers `status` (or until timeoutMs); resolves to the seconds it took, or null. */
export async function waitForStatus(url, status, timeoutMs, isGone = () => false) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs && !isGone()) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.status === status) return (Date.now() - started) / 1000;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return null;
}
