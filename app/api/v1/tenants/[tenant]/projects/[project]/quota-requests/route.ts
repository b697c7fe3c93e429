import { createQuotaRequestRoute, listProjectQuotaRequests } from "@/lib/api/routes/quota";

export const GET = listProjectQuotaRequests.handle;
export const POST = createQuotaRequestRoute.handle;
