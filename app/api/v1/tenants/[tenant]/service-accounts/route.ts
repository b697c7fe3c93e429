import { listServiceAccounts, createServiceAccountRoute } from "@/lib/api/routes/service-accounts";

export const GET = listServiceAccounts.handle;
export const POST = createServiceAccountRoute.handle;
