import { readFile } from "node:fs/promises";
import path from "node:path";

/**
 * The API reference's renderer (@scalar/api-reference's browser bundle, 4.8 MB,
 * 1.4 MB as Next compresses it), served from our own origin: the portal's CSP
 * allows no script from another origin and no page may load code from a CDN.
 * Read once per process; browsers keep it a day. next.config.ts traces the
 * file into the standalone image.
 */
const BUNDLE = path.join(process.cwd(), "node_modules/@scalar/api-reference/dist/browser/standalone.js");
let bundle: Promise<Buffer> | undefined;

export async function GET() {
  bundle ??= readFile(BUNDLE);
  return new Response(new Uint8Array(await bundle), {
    headers: {
      "Content-Type": "text/javascript; charset=utf-8",
      // The file changes only with the package version, i.e. with a new release of the portal.
      "Cache-Control": "private, max-age=86400",
    },
  });
}
