import { getTenantFocus } from "@/lib/api/routes/metering";

export const GET = getTenantFocus.handle;
