import { inviteCollaboratorRoute } from "@/lib/api/routes/collaborators";

export const POST = inviteCollaboratorRoute.handle;
