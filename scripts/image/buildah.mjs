// Helpers shared by `npm run image` and `npm run image:check`: buildah with a storage driver that
// works here, and the question whether this machine can build and run images at all.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";

// overlay (buildah's default) where the kernel has it: about six times faster here than vfs, which
// copies every layer whole; vfs works everywhere. ALLOT_IMAGE_STORAGE_DRIVER chooses.
const kernelHasOverlay = () => fs.existsSync("/proc/filesystems") && /\toverlay$/m.test(fs.readFileSync("/proc/filesystems", "utf8"));
export const STORAGE_DRIVER = process.env.ALLOT_IMAGE_STORAGE_DRIVER || (kernelHasOverlay() ? "overlay" : "vfs");
export const STORAGE = ["--storage-driver", STORAGE_DRIVER];
export const APP_IMAGE = process.env.ALLOT_IMAGE || "localhost/allot:dev";
/** Every image and intermediate layer of ours carries this label, so pruning never touches anyone else's. */
export const LABEL = "dev.allot.image";

function onPath(tool) {
  return spawnSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" }).status === 0;
}

/** Null when buildah (and mmdebstrap, for the base) can run here; otherwise why not, and how to fix it. */
export function whyImagesCannotBeBuilt() {
  if (process.platform !== "linux") return `images are built with buildah, which needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return "building the base (mmdebstrap) and running the image (mount namespaces, chroot) need root";
  const missing = ["buildah", "mmdebstrap", "unshare", "chroot", "nsenter"].filter((tool) => !onPath(tool));
  if (missing.length > 0) return `${missing.join(", ")} not installed (apt-get install -y buildah mmdebstrap)`;
  return null;
}

/** Run buildah and return its standard output; throws with its error output on failure. */
export function buildah(args, { quiet = true } = {}) {
  const result = spawnSync("buildah", [...STORAGE, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", quiet ? "pipe" : "inherit"], maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`buildah ${args.join(" ")} failed:\n${result.stderr ?? ""}`);
  return result.stdout.trim();
}

/** Run a long command with its output shown; resolves when it succeeds, rejects naming it otherwise. */
export function runShown(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"], ...options });
    child.on("error", reject);
    child.on("exit", (code, signal) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.slice(0, 3).join(" ")} … exited with ${code ?? signal}`))));
  });
}

export function imageExists(name) {
  return spawnSync("buildah", [...STORAGE, "inspect", "--type", "image", name], { stdio: "ignore" }).status === 0;
}

/** The image's configuration (OCI): Env, User, Entrypoint, Cmd, WorkingDir. */
export function imageConfig(name) {
  return JSON.parse(buildah(["inspect", "--type", "image", name])).OCIv1.config;
}

/** Size as buildah reports it, in bytes and as buildah prints it. */
export function imageSize(name) {
  const printed = buildah(["images", "--format", "{{.Size}}", name]).split("\n")[0];
  const units = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9 };
  const [, amount, unit] = /^([\d.]+)\s*([KMG]?B)$/i.exec(printed) ?? [];
  return { printed, bytes: amount ? Math.round(Number(amount) * units[unit.toUpperCase()]) : null };
}

/** Remove our untagged images (replaced builds, stale cache layers); other images stay. */
export function pruneDanglingImages() {
  const ids = buildah(["images", "--filter", "dangling=true", "--filter", `label=${LABEL}`, "--format", "{{.ID}}"]).split("\n").filter(Boolean);
  for (const id of ids) spawnSync("buildah", [...STORAGE, "rmi", id], { stdio: "ignore" });
  return ids.length;
}

export const seconds = (fromMs) => ((Date.now() - fromMs) / 1000).toFixed(1);
