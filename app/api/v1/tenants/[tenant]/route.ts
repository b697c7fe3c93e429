import { getTenant, updateTenantStatus } from "@/lib/api/routes/tenants";

export const GET = getTenant.handle;
export const PATCH = updateTenantStatus.handle;
