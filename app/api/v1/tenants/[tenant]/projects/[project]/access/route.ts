import { projectAccess } from "@/lib/api/routes/projects";

export const GET = projectAccess.handle;
