import { groups } from "@/lib/scim/endpoints";

export const GET = groups.get;
export const PUT = groups.replace;
export const PATCH = groups.patch;
export const DELETE = groups.remove;
