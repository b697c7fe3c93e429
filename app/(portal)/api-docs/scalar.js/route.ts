import { readFile } from "node:fs/promises";
import path from "node:path";

/**
 * The API reference's renderer (@scalar/api-reference's browser bundle), served
 * from our own origin: the portal's CSP allows scripts from 'self' only and no
 * page may load code from a CDN. Read once per process; next.config.ts traces
 * the file into the standalone image.
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
