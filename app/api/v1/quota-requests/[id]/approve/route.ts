import { approveQuotaRequestRoute } from "@/lib/api/routes/quota";

export const POST = approveQuotaRequestRoute.handle;
