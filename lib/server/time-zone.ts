import "server-only";
import { cookies } from "next/headers";
import { cache } from "react";
import { parseTimeZone } from "@/lib/format";

/** The cookie components/time-zone-cookie.tsx writes with the browser's IANA zone. */
export const TIME_ZONE_COOKIE = "allot-tz";

/**
 * The zone this request's pages render instants in: the browser's, as its
 * cookie names it and Intl knows it, else UTC (first visit, cookies off, a
 * zone this server's Intl does not know, a forged value). Cached per request.
 */
export const viewerTimeZone = cache(async (): Promise<string> => parseTimeZone((await cookies()).get(TIME_ZONE_COOKIE)?.value));
