import "server-only";
import { config } from "@/lib/config";
import { DEFAULT_KEY_SET_OPTIONS, IssuerKeys } from "./jwks";

const globalForKeys = globalThis as unknown as { allotIssuerKeys?: IssuerKeys };

/** The process's one cache of issuer keys, so every exchange reuses what discovery found. */
export function issuerKeys(): IssuerKeys {
  globalForKeys.allotIssuerKeys ??= new IssuerKeys({ ...DEFAULT_KEY_SET_OPTIONS, httpLoopback: config().federation.httpLoopback });
  return globalForKeys.allotIssuerKeys;
}
