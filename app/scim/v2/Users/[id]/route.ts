import { users } from "@/lib/scim/endpoints";

export const GET = users.get;
export const PUT = users.replace;
export const PATCH = users.patch;
export const DELETE = users.remove;
