import { generateKeyPairSync } from "node:crypto";
import http from "node:http";
import { test } from "@playwright/test";
import type { Account } from "oidc-provider";
import { BASE_URL, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_ISSUER, OIDC_PORT } from "./env";

/** The people the test identity provider knows; the devInteractions login form takes the key. */
export const IDP_ACCOUNTS = {
  "oidc-user-1": { email: "olivia@idp.example", name: "Olivia Idp", groups: ["allot-platform-admins", "ml-researchers"] },
  "oidc-user-2": { email: "noah@idp.example", name: "Noah Idp", groups: ["ml-researchers"] },
  // People the tenancy journeys invite; they have no account in the portal until they first sign in.
  "invitee-1": { email: "ines@idp.example", name: "Ines Invitee", groups: [] },
  "collab-1": { email: "carl@university.example", name: "Carl Collaborator", groups: [] },
} as const;

type AccountId = keyof typeof IDP_ACCOUNTS;

function findAccount(_ctx: unknown, id: string): Account | undefined {
  if (!Object.hasOwn(IDP_ACCOUNTS, id)) return undefined;
  const person: { email: string; name: string; groups: readonly string[] } = IDP_ACCOUNTS[id as AccountId];
  return { accountId: id, claims: () => ({ sub: id, email: person.email, email_verified: true, name: person.name, groups: [...person.groups] }) };
}

export type RunningProvider = { stop: () => Promise<void> };

/**
 * A real OpenID provider (oidc-provider) on loopback, with the portal as its
 * one confidential client. Login and consent are the package's development
 * interactions, which the journey drives like a person would.
 */
export async function startOidcProvider(): Promise<RunningProvider> {
  // ESM-only package: loaded dynamically from this CommonJS-transpiled test code.
  const { default: Provider } = await import("oidc-provider");
  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const provider = new Provider(OIDC_ISSUER, {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        redirect_uris: [`${BASE_URL}/api/auth/callback/oidc`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        // What @auth/core sends when the provider config names no method.
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    // Put the profile and email claims (and groups) into the ID token, where next-auth reads them.
    conformIdTokenClaims: false,
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
    findAccount,
    jwks: { keys: [{ ...signingKey, kid: "e2e-signing-key", use: "sig", alg: "RS256" }] },
    cookies: { keys: ["allot-e2e-idp-cookie-key"] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
  });

  const server = http.createServer(provider.callback());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(OIDC_PORT, "127.0.0.1", () => resolve());
  });

  return {
    stop: () =>
      new Promise<void>((resolve, reject) => {
        // The portal's fetches keep connections alive; close them so the port is freed now.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * Run the provider around the tests of the calling spec file: started before
 * its first test, stopped after its last. Its port is fixed, so only one file
 * may hold it at a time; the suite runs files one after another on one worker,
 * and each file frees the port before the next starts.
 */
export function runOidcProviderForThisFile(): void {
  let provider: RunningProvider | undefined;
  test.beforeAll(async () => {
    provider = await startOidcProvider();
  });
  test.afterAll(async () => {
    await provider?.stop();
    provider = undefined;
  });
}
