import { getPlatformSpend } from "@/lib/api/routes/metering";

export const GET = getPlatformSpend.handle;
