import { deleteNodePoolRoute, updateNodePoolRoute } from "@/lib/api/routes/capacity";

export const PATCH = updateNodePoolRoute.handle;
export const DELETE = deleteNodePoolRoute.handle;
