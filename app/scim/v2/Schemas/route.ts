import { discovery } from "@/lib/scim/endpoints";

export const GET = discovery.schemas;
