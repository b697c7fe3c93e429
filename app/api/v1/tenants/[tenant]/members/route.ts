import { listMembers } from "@/lib/api/routes/members";

export const GET = listMembers.handle;
