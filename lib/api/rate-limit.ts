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

async function retryAfter(limiter: RateLimiterMemory, key: string, limit: number): Promise<number> {
  const state = await limiter.get(key);
  return state && state.consumedPoints >= limit ? Math.ceil(state.msBeforeNext / 1000) : 0;
}

/** Seconds until this address may try again, or 0 when not limited. */
export function addressRetryAfter(address: string): Promise<number> {
  return retryAfter(byAddress, address, FAILURE_LIMITS.perAddress);
}

/** Seconds until failures for this token prefix are accepted again, or 0. */
export function prefixRetryAfter(prefix: string | null): Promise<number> {
  return prefix ? retryAfter(byPrefix, prefix, FAILURE_LIMITS.perPrefix) : Promise.resolve(0);
}

export async function recordAuthFailure(address: string, prefix: string | null): Promise<void> {
  const consume = (limiter: RateLimiterMemory, key: string) => limiter.consume(key).catch(() => undefined); // already over: stays blocked
  await Promise.all([consume(byAddress, address), prefix ? consume(byPrefix, prefix) : Promise.resolve()]);
}

/**
 * The client address as the nearest proxy saw it: X-Real-IP, else the last
 * X-Forwarded-For entry (the one the proxy appended; earlier entries are
 * whatever the client sent), else "direct".
 */
export function clientAddress(headers: Headers): string {
  return headers.get("x-real-ip")?.trim() || headers.get("x-forwarded-for")?.split(",").at(-1)?.trim() || "direct";
}
