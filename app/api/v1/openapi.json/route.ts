import { buildOpenApiDocument } from "@/lib/api/openapi";
import { API_ROUTES } from "@/lib/api/registry";
import { methodHandlers } from "@/lib/api/route-file";

/** Public: the API's description, generated from the same schemas that validate requests. */
const getDocument = (request: Request) =>
  Promise.resolve(Response.json(buildOpenApiDocument(API_ROUTES, new URL(request.url).origin), { headers: { "Cache-Control": "no-store" } }));

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = methodHandlers("/api/v1/openapi.json", { GET: getDocument });
