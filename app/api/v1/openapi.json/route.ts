import { buildOpenApiDocument } from "@/lib/api/openapi";
import { API_ROUTES } from "@/lib/api/registry";

/** Public: the API's description, generated from the same schemas that validate requests. */
export function GET(request: Request) {
  return Response.json(buildOpenApiDocument(API_ROUTES, new URL(request.url).origin), { headers: { "Cache-Control": "no-store" } });
}
