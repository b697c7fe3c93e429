import { addRateRoute, listRates } from "@/lib/api/routes/capacity";

export const GET = listRates.handle;
export const POST = addRateRoute.handle;
