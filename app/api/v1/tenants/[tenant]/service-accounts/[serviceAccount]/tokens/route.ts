import { listTokens, mintTokenRoute } from "@/lib/api/routes/service-accounts";

export const GET = listTokens.handle;
export const POST = mintTokenRoute.handle;
