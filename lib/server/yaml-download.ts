import "server-only";
import { currentContext } from "@/lib/auth/current-actor";
import type { CommandContext } from "@/lib/auth/context";
import { AppError, reportUnexpectedError } from "@/lib/errors";

/**
 * A YAML download for the signed-in person (manifests to apply with kubectl or
 * a GitOps tool). `produce` decides access through the policy, as the page
 * does, and returns null for anything out of reach. Out of reach, and signed
 * out, are both 404: a download says nothing about what exists.
 */
export async function yamlDownload(produce: (ctx: CommandContext) => Promise<{ yaml: string; filename: string } | null>): Promise<Response> {
  const notFound = () => new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
  try {
    const ctx = await currentContext();
    if (!ctx) return notFound();
    const file = await produce(ctx);
    if (!file) return notFound();
    return new Response(file.yaml, {
      headers: {
        "Content-Type": "application/yaml; charset=utf-8",
        "Content-Disposition": `attachment; filename="${file.filename}"`,
        "Cache-Control": "no-store",
      },
    });
  } catch (error) {
    if (error instanceof AppError) return error.code === "not_found" ? notFound() : new Response(error.message, { status: 403 });
    const ref = reportUnexpectedError(error, "yaml download");
    return new Response(`Something went wrong. Reference ${ref}.`, { status: 500 });
  }
}
