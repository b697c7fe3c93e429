import { pushUsageRoute } from "@/lib/api/routes/metering";

export const POST = pushUsageRoute.handle;
