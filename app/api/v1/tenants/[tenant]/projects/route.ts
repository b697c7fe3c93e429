import { listProjects, createProjectRoute } from "@/lib/api/routes/projects";

export const GET = listProjects.handle;
export const POST = createProjectRoute.handle;
