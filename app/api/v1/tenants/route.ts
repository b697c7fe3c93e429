import { listTenants, createTenantRoute } from "@/lib/api/routes/tenants";

export const GET = listTenants.handle;
export const POST = createTenantRoute.handle;
