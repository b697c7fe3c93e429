import { getProjectFocus } from "@/lib/api/routes/metering";

export const GET = getProjectFocus.handle;
