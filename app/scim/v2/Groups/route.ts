import { groups } from "@/lib/scim/endpoints";

export const GET = groups.list;
export const POST = groups.create;
