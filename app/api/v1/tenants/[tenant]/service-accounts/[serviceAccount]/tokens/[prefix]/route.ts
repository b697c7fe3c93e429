import { revokeTokenRoute } from "@/lib/api/routes/service-accounts";

export const DELETE = revokeTokenRoute.handle;
