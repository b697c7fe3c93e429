/**
 * Runs once when the server starts, before it takes requests: validate the
 * configuration (a bad value stops the process, naming the variable), then
 * migrate and seed the database.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServer } = await import("./lib/server/start");
  await startServer();
}

/** Log every server error with the digest the browser shows as its reference id. */
export function onRequestError(error: unknown, request: { path: string; method: string }) {
  const digest = typeof error === "object" && error && "digest" in error ? String(error.digest) : "none";
  console.error(`[allot] request error ref=${digest} ${request.method} ${request.path}:`, error);
}
