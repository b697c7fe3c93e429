import { getServiceAccount, updateServiceAccountRoute, deleteServiceAccountRoute } from "@/lib/api/routes/service-accounts";

export const GET = getServiceAccount.handle;
export const PATCH = updateServiceAccountRoute.handle;
export const DELETE = deleteServiceAccountRoute.handle;
