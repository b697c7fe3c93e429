import { listInvitations, inviteMemberRoute } from "@/lib/api/routes/members";

export const GET = listInvitations.handle;
export const POST = inviteMemberRoute.handle;
