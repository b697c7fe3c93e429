import { grantProjectRoleRoute } from "@/lib/api/routes/projects";

export const POST = grantProjectRoleRoute.handle;
