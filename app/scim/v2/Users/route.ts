import { users } from "@/lib/scim/endpoints";

export const GET = users.list;
export const POST = users.create;
