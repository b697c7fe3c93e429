import { revokeInvitationRoute } from "@/lib/api/routes/members";

export const DELETE = revokeInvitationRoute.handle;
