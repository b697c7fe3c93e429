import { db } from "@/db/client";
import { methodHandlers } from "@/lib/api/route-file";
import { systemClock } from "@/lib/clock";
import { config } from "@/lib/config";
import { issuerKeys } from "@/lib/federation/issuer-keys";
import { handleTokenRequest } from "@/lib/federation/token-endpoint";

/** RFC 8693 token exchange: an external OIDC token in, a short-lived service account token out (lib/federation). */
const exchange = (request: Request) => handleTokenRequest(request, { db: db(), keys: issuerKeys(), now: systemClock(), tokenMinutes: config().federation.tokenMinutes });

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = methodHandlers("/oauth/token", { POST: exchange });
