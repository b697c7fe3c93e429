import { getProject, updateProjectRoute } from "@/lib/api/routes/projects";

export const GET = getProject.handle;
export const PATCH = updateProjectRoute.handle;
