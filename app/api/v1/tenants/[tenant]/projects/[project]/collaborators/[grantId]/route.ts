import { extendCollaboratorRoute, revokeCollaboratorRoute } from "@/lib/api/routes/collaborators";

export const PATCH = extendCollaboratorRoute.handle;
export const DELETE = revokeCollaboratorRoute.handle;
