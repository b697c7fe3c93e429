import { getQuotaRequest } from "@/lib/api/routes/quota";

export const GET = getQuotaRequest.handle;
