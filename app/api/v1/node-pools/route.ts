import { createNodePoolRoute, listNodePools } from "@/lib/api/routes/capacity";

export const GET = listNodePools.handle;
export const POST = createNodePoolRoute.handle;
