import { listQuotaRequests } from "@/lib/api/routes/quota";

export const GET = listQuotaRequests.handle;
