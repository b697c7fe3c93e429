import { getTenantSpend } from "@/lib/api/routes/metering";

export const GET = getTenantSpend.handle;
