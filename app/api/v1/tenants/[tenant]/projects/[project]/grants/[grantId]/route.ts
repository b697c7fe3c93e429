import { revokeProjectGrantRoute } from "@/lib/api/routes/projects";

export const DELETE = revokeProjectGrantRoute.handle;
