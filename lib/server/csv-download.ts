import "server-only";
import { currentContext } from "@/lib/auth/current-actor";
import type { CommandContext } from "@/lib/auth/context";
import { AppError, reportUnexpectedError } from "@/lib/errors";

/**
 * A CSV download for the signed-in person (portal pages link to these). The
 * query inside decides access, exactly as for the page; out of reach is 404.
 */
export async function csvDownload(produce: (ctx: CommandContext) => Promise<{ csv: string | ReadableStream<Uint8Array>; filename: string } | null>): Promise<Response> {
  const ctx = await currentContext();
  if (!ctx) return new Response("Sign in first.", { status: 401 });
  try {
    const file = await produce(ctx);
    if (!file) return new Response("Not found", { status: 404 });
    return new Response(file.csv, {
      headers: { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="${file.filename}"`, "Cache-Control": "no-store" },
    });
  } catch (error) {
    if (error instanceof AppError) return new Response(error.message, { status: error.code === "not_found" ? 404 : 403 });
    const ref = reportUnexpectedError(error, "csv download");
    return new Response(`Something went wrong. Reference ${ref}.`, { status: 500 });
  }
}
