// oidc-provider 9 ships no type declarations; this covers what the e2e provider uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export type AccountClaims = { sub: string } & Record<string, unknown>;
  export type Account = { accountId: string; claims: (use: string, scope: string) => AccountClaims | Promise<AccountClaims> };

  export type Configuration = {
    clients?: Record<string, unknown>[];
    claims?: Record<string, string[]>;
    conformIdTokenClaims?: boolean;
    cookies?: { keys?: string[] };
    features?: Record<string, { enabled: boolean }>;
    findAccount?: (ctx: unknown, id: string) => Account | undefined | Promise<Account | undefined>;
    jwks?: { keys: Record<string, unknown>[] };
    pkce?: { required?: () => boolean };
  };

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
