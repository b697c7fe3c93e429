import { routeFile } from "@/lib/api/route-file";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = routeFile("/api/v1/tenants/{tenant}/projects/{project}/quota-grants/{grant}/extension");
