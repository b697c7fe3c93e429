import { listCollaborators } from "@/lib/api/routes/collaborators";

export const GET = listCollaborators.handle;
