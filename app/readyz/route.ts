import { sql } from "drizzle-orm";
import { db } from "@/db/client";
import { reportUnexpectedError } from "@/lib/errors";
import { isDraining } from "@/lib/server/draining";

export const dynamic = "force-dynamic";

/** Readiness: not stopping, and the database answers. A failing check names no internals, only a reference. */
export async function GET() {
  if (isDraining()) return Response.json({ status: "draining" }, { status: 503, headers: { "Cache-Control": "no-store" } });
  try {
    await db().execute(sql`select 1`);
    return Response.json({ status: "ready", database: "ok" }, { headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    const ref = reportUnexpectedError(error, "readyz");
    return Response.json({ status: "unavailable", database: "unreachable", ref }, { status: 503, headers: { "Cache-Control": "no-store" } });
  }
}
