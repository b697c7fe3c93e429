import { cancelQuotaRequestRoute } from "@/lib/api/routes/quota";

export const POST = cancelQuotaRequestRoute.handle;
