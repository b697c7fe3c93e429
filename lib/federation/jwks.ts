import { createRemoteJWKSet, type JWTVerifyGetKey } from "jose";
import { issuerProblem } from "./inputs";

/**
 * Keys of the issuers we trust, found through OIDC discovery
 * (`<issuer>/.well-known/openid-configuration` names `jwks_uri`) and cached
 * per issuer. jose's remote key set keeps the keys for `cacheMaxAge` and,
 * when a token names a key id it does not hold (the issuer rotated), fetches
 * the set again, but not more often than `cooldownDuration`: a stream of
 * tokens with made-up key ids cannot make us hammer the issuer.
 */

export type KeySetOptions = { httpLoopback: boolean; cacheMaxAgeMs: number; cooldownMs: number; timeoutMs: number };

export const DEFAULT_KEY_SET_OPTIONS: Omit<KeySetOptions, "httpLoopback"> = { cacheMaxAgeMs: 10 * 60_000, cooldownMs: 30_000, timeoutMs: 5_000 };

export class DiscoveryError extends Error {}

type Entry = { keys: JWTVerifyGetKey; discoveredAt: number };

export class IssuerKeys {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Entry>>();

  constructor(private readonly options: KeySetOptions) {}

  /** The key resolver of this issuer; discovery is repeated after cacheMaxAge, in case jwks_uri moved. */
  async forIssuer(issuer: string, now = Date.now()): Promise<JWTVerifyGetKey> {
    const cached = this.entries.get(issuer);
    if (cached && now - cached.discoveredAt < this.options.cacheMaxAgeMs) return cached.keys;
    let pending = this.pending.get(issuer);
    if (!pending) {
      pending = this.discover(issuer, now).finally(() => this.pending.delete(issuer));
      this.pending.set(issuer, pending);
    }
    return (await pending).keys;
  }

  private async discover(issuer: string, now: number): Promise<Entry> {
    const url = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
    let document: unknown;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(this.options.timeoutMs), redirect: "error", headers: { accept: "application/json" } });
      if (!response.ok) throw new DiscoveryError(`discovery answered ${response.status}`);
      document = await response.json();
    } catch (error) {
      if (error instanceof DiscoveryError) throw error;
      throw new DiscoveryError(`discovery failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    const { issuer: named, jwks_uri: jwksUri } = (document ?? {}) as { issuer?: unknown; jwks_uri?: unknown };
    // OIDC Discovery 1.0 §4.3: the document must name exactly the issuer it was fetched for.
    if (named !== issuer) throw new DiscoveryError("the discovery document names another issuer");
    if (typeof jwksUri !== "string" || issuerProblem(jwksUri, this.options.httpLoopback)) throw new DiscoveryError("the discovery document has no usable jwks_uri");
    const keys = createRemoteJWKSet(new URL(jwksUri), {
      cacheMaxAge: this.options.cacheMaxAgeMs,
      cooldownDuration: this.options.cooldownMs,
      timeoutDuration: this.options.timeoutMs,
    });
    const entry = { keys, discoveredAt: now };
    this.entries.set(issuer, entry);
    return entry;
  }
}
