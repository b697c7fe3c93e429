import { rotateTokenRoute } from "@/lib/api/routes/service-accounts";

export const POST = rotateTokenRoute.handle;
