import "server-only";
import { RateLimiterMemory } from "rate-limiter-flexible";

/**
 * Failed token authentications are limited per client address and per token
 * prefix, so neither guessing tokens from one place nor hammering one known
 * prefix from many places gets far. Counts live in this process: with several
 * replicas each keeps its own (the limit is per replica).
 */
const WINDOW_SECONDS = 300;
export const FAILURE_LIMITS = { perAddress: 20, perPrefix: 10 } as const;

const byAddress = new RateLimiterMemory({ keyPrefix: "auth-fail-ip", points: FAILURE_LIMITS.perAddress, duration: WINDOW_SECONDS });
const byPrefix = new RateLimiterMemory({ keyPrefix: "auth-fail-prefix", points: FAILURE_LIMITS.perPrefix, duration: WINDOW_SECONDS });

/** Seconds until the caller may try again, or 0 when not limited. */
export async function authRetryAfter(address: string, prefix: string | null): Promise<number> {
  const [ip, pre] = await Promise.all([byAddress.get(address), prefix ? byPrefix.get(prefix) : null]);
  const blocked = [ip && ip.consumedPoints >= FAILURE_LIMITS.perAddress ? ip : null, pre && pre.consumedPoints >= FAILURE_LIMITS.perPrefix ? pre : null].filter(
    (r) => r !== null,
  );
  return blocked.length ? Math.ceil(Math.max(...blocked.map((r) => r.msBeforeNext)) / 1000) : 0;
}

export async function recordAuthFailure(address: string, prefix: string | null): Promise<void> {
  const consume = (limiter: RateLimiterMemory, key: string) => limiter.consume(key).catch(() => undefined); // already over: stays blocked
  await Promise.all([consume(byAddress, address), prefix ? consume(byPrefix, prefix) : Promise.resolve()]);
}

/** The client address as the nearest proxy reports it (X-Forwarded-For's first entry), else "direct". */
export function clientAddress(headers: Headers): string {
  return headers.get("x-real-ip") ?? headers.get("x-forwarded-for")?.split(",")[0]?.trim() ?? "direct";
}
