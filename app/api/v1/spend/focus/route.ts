import { getPlatformFocus } from "@/lib/api/routes/metering";

export const GET = getPlatformFocus.handle;
