import { changeMemberRoleRoute, removeMemberRoute } from "@/lib/api/routes/members";

export const PATCH = changeMemberRoleRoute.handle;
export const DELETE = removeMemberRoute.handle;
