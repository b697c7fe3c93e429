import { rejectQuotaRequestRoute } from "@/lib/api/routes/quota";

export const POST = rejectQuotaRequestRoute.handle;
