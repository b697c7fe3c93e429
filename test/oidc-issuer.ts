import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";

/**
 * An OpenID issuer on loopback for the token exchange tests: it serves
 * discovery and its JWKS over plain http, and signs tokens with its own keys.
 * It can rotate (publish a new key, optionally dropping the old one), and
 * counts JWKS fetches so caching and refetching can be seen.
 */

type SigningKey = { kid: string; privateKey: CryptoKey; jwk: JWK };

export type LoopbackIssuer = {
  url: string;
  jwksFetches: () => number;
  discoveryFetches: () => number;
  /** Publish a new key and sign with it from now on; `keepOld` leaves the previous one published too. */
  rotate: (keepOld?: boolean) => Promise<void>;
  /** A token signed with the current key (or `key`), with iss set and the given claims and header. */
  sign: (claims: JWTPayload, options?: { key?: SigningKey; kid?: string; alg?: string }) => Promise<string>;
  /** A key this issuer never publishes: for tokens signed by someone else. */
  strangerKey: () => Promise<SigningKey>;
  close: () => Promise<void>;
};

let kids = 0;
async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  kids += 1;
  const kid = `key-${kids}`;
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } };
}

export async function startLoopbackIssuer(): Promise<LoopbackIssuer> {
  let current = await newKey();
  let published: SigningKey[] = [current];
  let jwks = 0;
  let discovery = 0;
  let url = "";
  const server = http.createServer((request, response) => {
    const send = (body: unknown) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.url === "/.well-known/openid-configuration") {
      discovery += 1;
      return send({ issuer: url, jwks_uri: `${url}/jwks`, id_token_signing_alg_values_supported: ["RS256"] });
    }
    if (request.url === "/jwks") {
      jwks += 1;
      return send({ keys: published.map((k) => k.jwk) });
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    jwksFetches: () => jwks,
    discoveryFetches: () => discovery,
    async rotate(keepOld = false) {
      const next = await newKey();
      published = keepOld ? [...published, next] : [next];
      current = next;
    },
    sign(claims, options = {}) {
      const key = options.key ?? current;
      return new SignJWT({ iss: url, ...claims }).setProtectedHeader({ alg: options.alg ?? "RS256", kid: options.kid ?? key.kid, typ: "JWT" }).sign(key.privateKey);
    },
    strangerKey: newKey,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
