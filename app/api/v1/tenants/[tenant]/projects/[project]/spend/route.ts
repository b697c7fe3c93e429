import { getProjectSpend } from "@/lib/api/routes/metering";

export const GET = getProjectSpend.handle;
