#!/usr/bin/env node
// `npm run image`: build the container image here, without Docker or Podman and without public
// registries: the base from Debian packages and the npm registry (scripts/image/base.mjs, built
// once and reused), then the Containerfile with buildah, tagged localhost/allot:dev (ALLOT_IMAGE).
// Prints the image size and the build times; writes them to test-results/image-build.json.
//   --rebuild-base   make the base again (for Debian security updates; it is otherwise reused)
import fs from "node:fs";
import path from "node:path";
import { APP_IMAGE, LABEL, imageSize, pruneDanglingImages, runShown, seconds, STORAGE, whyImagesCannotBeBuilt } from "./image/buildah.mjs";
import { ensureBaseImages } from "./image/base.mjs";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);

const why = whyImagesCannotBeBuilt();
if (why) {
  console.error(`[image] cannot build here: ${why}.`);
  process.exit(1);
}

const started = Date.now();
const base = await ensureBaseImages({ rebuild: process.argv.includes("--rebuild-base") });
console.log(base.built ? `[image] base built in ${base.seconds} s` : `[image] base ${base.runtime} reused (npm run image -- --rebuild-base makes it again)`);

const bud = (extra) => [
  ...STORAGE,
  "bud",
  "--isolation",
  "chroot",
  // Keep each step's result, so a change of sources reuses the npm ci layer.
  "--layers",
  "--build-arg",
  `BASE_IMAGE=${base.runtime}`,
  "--build-arg",
  `BUILD_IMAGE=${base.build}`,
  // This machine reaches the npm registry through a proxy whose CA node is told of in NODE_EXTRA_CA_CERTS.
  ...(process.env.NODE_EXTRA_CA_CERTS ? ["--secret", `id=build-ca,src=${process.env.NODE_EXTRA_CA_CERTS}`] : []),
  "-f",
  "Containerfile",
  ...extra,
  ".",
];
const appStarted = Date.now();
// The build stage gets a tag of its own, so pruning keeps it and its npm ci layer (the cache) until the sources change.
await runShown("buildah", bud(["--target", "build", "-t", "localhost/allot-build:dev"]));
await runShown("buildah", bud(["-t", APP_IMAGE]));
const appSeconds = seconds(appStarted);
const pruned = pruneDanglingImages();

const size = imageSize(APP_IMAGE);
const figures = {
  image: APP_IMAGE,
  size: size.printed,
  sizeBytes: size.bytes,
  base: base.runtime,
  baseBuiltSeconds: base.built ? Number(base.seconds) : null,
  appBuildSeconds: Number(appSeconds),
  totalSeconds: Number(seconds(started)),
  finishedAt: new Date().toISOString(),
};
fs.mkdirSync("test-results", { recursive: true });
fs.writeFileSync("test-results/image-build.json", `${JSON.stringify(figures, null, 2)}\n`);
console.log(
  `\n[image] ${APP_IMAGE}: ${size.printed}; base ${base.built ? `built in ${base.seconds} s` : "reused"}, app built in ${appSeconds} s, total ${figures.totalSeconds} s` +
    (pruned ? ` (${pruned} replaced ${LABEL} layers removed)` : ""),
);
