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
export async function onRequestError(
  error: unknown,
  request: Readonly<{ path: string; method: string; headers: NodeJS.Dict<string | string[]> }>,
  context: Readonly<{ routePath: string; routeType: string }>,
) {
  const digest = typeof error === "object" && error && "digest" in error ? String(error.digest) : "none";
  if (process.env.NEXT_RUNTIME !== "nodejs") {
    console.error(`[allot] request error ref=${digest} ${request.method} ${request.path}:`, error);
    return;
  }
  const [{ log }, { pathOnly }] = await Promise.all([import("./lib/observability/log"), import("./lib/observability/request-log")]);
  // The request id comes with the request's context; the header (cleaned by the same hook) covers a call made outside it.
  const header = request.headers["x-request-id"];
  log().error(
    { err: error, ref: digest, method: request.method, path: pathOnly(request.path), route: context.routePath, routeType: context.routeType, ...(typeof header === "string" ? { requestId: header } : {}) },
    "request error",
  );
}
