#!/usr/bin/env node
// `npm start`: build if the sources changed since the last build, then run the
// production server. With no configuration it uses the embedded database under
// .data/ (or ALLOT_DATA_DIR) and creates a session secret there on first start
// (image/auth-secret.mjs: AUTH_SECRET, AUTH_SECRET_FILE, or that file).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { setAuthSecretOrExit } from "../image/auth-secret.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);
process.env.NEXT_TELEMETRY_DISABLED ??= "1";
const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");

const SOURCE_DIRS = ["app", "components", "lib", "db", "public"];
const SOURCE_FILES = ["next.config.ts", "proxy.ts", "instrumentation.ts", "package-lock.json", "postcss.config.mjs", "tsconfig.json"];

function newestMtime(entry) {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(entry).reduce((max, name) => Math.max(max, newestMtime(path.join(entry, name))), stat.mtimeMs);
}

function buildIsStale() {
  const stamp = path.join(root, ".next", "BUILD_ID");
  if (!fs.existsSync(stamp)) return true;
  const built = fs.statSync(stamp).mtimeMs;
  return [...SOURCE_DIRS, ...SOURCE_FILES].some((entry) => newestMtime(entry) > built);
}

setAuthSecretOrExit(process.env);
// The server's own shutdown (lib/server/shutdown.ts) closes the database before exiting, instead of Next's immediate exit.
process.env.NEXT_MANUAL_SIG_HANDLE = "true";

if (buildIsStale()) {
  console.log("[allot] building the portal (first start or sources changed)…");
  const build = spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit", env: process.env });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const port = process.env.PORT || "3000";
const server = spawn(process.execPath, [nextBin, "start", "-p", port], { stdio: "inherit", env: process.env });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
