import { unknownPathHandlers } from "@/lib/api/route-file";

/** Any path under /api/v1 that no route file serves: a 404 with the API's error body, whatever the method. */
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = unknownPathHandlers();
