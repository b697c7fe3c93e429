import { getProjectQuota } from "@/lib/api/routes/quota";

export const GET = getProjectQuota.handle;
