import { archiveProjectRoute } from "@/lib/api/routes/projects";

export const POST = archiveProjectRoute.handle;
