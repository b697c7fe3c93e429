/** Liveness: the process is up and serving. Does not touch the database on purpose. */
export function GET() {
  return Response.json({ status: "ok" }, { headers: { "Cache-Control": "no-store" } });
}
