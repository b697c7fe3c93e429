#!/usr/bin/env node
// The container image's entry point, /app/bin/allot (also on PATH as `allot`):
//   allot serve          the portal on PORT (default 3000); the image's default command
//   allot <command> ...  the operator CLI: migrate, seed, worker, create-admin, ... (allot help)
// Both run in this one node process, so it is PID 1 in a container and receives SIGTERM itself:
// lib/server/shutdown.ts (the portal) and the CLI's worker command handle it.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { setAuthSecretOrExit } from "./auth-secret.mjs";

const app = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// Migrations are read from ./db/migrations, as in the repository.
process.chdir(app);
const [command = "serve", ...args] = process.argv.slice(2);

if (command === "serve") {
  if (args.length > 0) {
    console.error(`allot serve takes no arguments (got: ${args.join(" ")}); configure it with environment variables.`);
    process.exit(2);
  }
  setAuthSecretOrExit(process.env);
  // Next keeps its runtime cache in .next/cache, which the image links into /tmp (the root file system may be read-only).
  fs.mkdirSync("/tmp/allot/next-cache", { recursive: true });
  // Our shutdown (lib/server/shutdown.ts) closes the database before exiting; Next's own handler would exit at once.
  process.env.NEXT_MANUAL_SIG_HANDLE = "true";
  // The standalone server binds to HOSTNAME, which container runtimes set to the container's name.
  process.env.HOSTNAME = process.env.ALLOT_LISTEN_HOST || "0.0.0.0";
  await import(pathToFileURL(path.join(app, "server.js")).href);
} else {
  const cli = path.join(app, "cli", "allot.mjs");
  process.argv = [process.argv[0], cli, command, ...args];
  await import(pathToFileURL(cli).href);
}
