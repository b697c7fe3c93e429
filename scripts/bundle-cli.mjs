#!/usr/bin/env node
// Bundles the operator CLI (cli/allot.ts) into one ES module for the container image, where
// neither tsx nor the full node_modules exist: `node scripts/bundle-cli.mjs <out-file>`.
// Everything is bundled except PGlite, which loads its WebAssembly and data files from its own
// package directory; the standalone server ships that package, and the image puts the bundle
// beside it (/app/cli/allot.mjs resolves /app/node_modules/@electric-sql/pglite).
import { build } from "esbuild";
import path from "node:path";

const out = process.argv[2];
if (!out) {
  console.error("usage: node scripts/bundle-cli.mjs <out-file>");
  process.exit(2);
}
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

await build({
  absWorkingDir: root,
  entryPoints: ["cli/allot.ts"],
  outfile: out,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // As `npm run allot` runs it (tsx --conditions=react-server): server-only modules resolve to their server side.
  conditions: ["react-server"],
  external: ["@electric-sql/pglite"],
  // Bundled CommonJS dependencies call require() for Node's built-ins; an ES module has none of its own.
  banner: { js: 'import { createRequire as __allotCreateRequire } from "node:module"; const require = __allotCreateRequire(import.meta.url);' },
  logLevel: "warning",
});
console.log(`CLI bundled to ${out}`);
