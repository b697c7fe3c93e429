import "server-only";
import { z } from "zod";
import { executeCommand } from "@/lib/auth/command";
import { AppError } from "@/lib/errors";
import {
  changeServiceAccount,
  createServiceAccount,
  deleteServiceAccount,
  mintToken,
  revokeToken,
  rotateToken,
} from "@/lib/tenancy/commands/service-accounts";
import { tenantServiceAccounts } from "@/lib/tenancy/service-account-queries";
import type { CommandContext } from "@/lib/auth/context";
import { tenantParams } from "../params";
import { apiRoute, commandInput } from "../route";
import { newTokenOut, okOut, serviceAccountOut, tokenOut } from "../schemas";

export const accountParams = tenantParams.extend({ serviceAccount: z.string().max(64) });
const tokenParams = accountParams.extend({ prefix: z.string().max(32) });

/** One service account of the tenant (with whether the caller may manage it), read in one query set. */
export async function oneAccount(ctx: CommandContext, params: z.infer<typeof accountParams>) {
  const { accounts, canManage } = await tenantServiceAccounts(ctx, params.tenant);
  const account = accounts.find((a) => a.name === params.serviceAccount);
  if (!account) throw new AppError("not_found");
  return { account, canManage };
}

export const listServiceAccounts = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/service-accounts",
  summary: "Service accounts of the tenant with their project roles (and tokens, for tenant admins)",
  tag: "Service accounts",
  params: tenantParams,
  response: z.object({ serviceAccounts: z.array(serviceAccountOut) }),
  handler: async (ctx, { params }) => ({ serviceAccounts: (await tenantServiceAccounts(ctx, params.tenant)).accounts }),
});

export const createServiceAccountRoute = apiRoute({
  method: "POST",
  path: "/api/v1/tenants/{tenant}/service-accounts",
  summary: "Create a service account owned by the tenant",
  tag: "Service accounts",
  params: tenantParams,
  body: createServiceAccount.input,
  bodyFromPath: ["tenant"],
  response: serviceAccountOut.pick({ principalId: true, name: true, description: true }),
  status: 201,
  handler: (ctx, { params, body }) => executeCommand(createServiceAccount, ctx, commandInput(body, params)),
});

export const getServiceAccount = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/service-accounts/{serviceAccount}",
  summary: "One service account",
  tag: "Service accounts",
  params: accountParams,
  response: serviceAccountOut,
  handler: async (ctx, { params }) => (await oneAccount(ctx, params)).account,
});

export const updateServiceAccountRoute = apiRoute({
  method: "PATCH",
  path: "/api/v1/tenants/{tenant}/service-accounts/{serviceAccount}",
  summary: "Change the description, or disable / re-enable the account (send at least one; both change together or not at all)",
  tag: "Service accounts",
  params: accountParams,
  body: changeServiceAccount.input,
  bodyFromPath: ["tenant", "serviceAccount"],
  response: serviceAccountOut,
  async handler(ctx, { params, body }) {
    await executeCommand(changeServiceAccount, ctx, commandInput(body, params));
    return (await oneAccount(ctx, params)).account;
  },
});

export const deleteServiceAccountRoute = apiRoute({
  method: "DELETE",
  path: "/api/v1/tenants/{tenant}/service-accounts/{serviceAccount}",
  summary: "Delete a service account with its tokens and roles",
  tag: "Service accounts",
  params: accountParams,
  response: okOut,
  async handler(ctx, { params }) {
    await executeCommand(deleteServiceAccount, ctx, params);
    return { ok: true };
  },
});

export const listTokens = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/tokens",
  summary: "Tokens of a service account, by prefix (tenant admins; secrets are never shown again)",
  tag: "Service accounts",
  params: accountParams,
  response: z.object({ tokens: z.array(tokenOut) }),
  async handler(ctx, { params }) {
    const { account, canManage } = await oneAccount(ctx, params);
    if (!canManage) throw new AppError("forbidden");
    return { tokens: account.tokens };
  },
});

export const mintTokenRoute = apiRoute({
  method: "POST",
  path: "/api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/tokens",
  summary: "Mint a token: give expiresInDays, or noExpiry: true to confirm one that never expires",
  tag: "Service accounts",
  params: accountParams,
  body: mintToken.input,
  bodyFromPath: ["tenant", "serviceAccount"],
  response: newTokenOut,
  status: 201,
  handler: (ctx, { params, body }) => executeCommand(mintToken, ctx, commandInput(body, params)),
});

export const revokeTokenRoute = apiRoute({
  method: "DELETE",
  path: "/api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/tokens/{prefix}",
  summary: "Revoke a token now",
  tag: "Service accounts",
  params: tokenParams,
  response: okOut,
  async handler(ctx, { params }) {
    await executeCommand(revokeToken, ctx, params);
    return { ok: true };
  },
});

export const rotateTokenRoute = apiRoute({
  method: "POST",
  path: "/api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/tokens/{prefix}/rotate",
  summary: "Replace a token; the old one stays valid for graceHours (0 ends it now)",
  tag: "Service accounts",
  params: tokenParams,
  body: rotateToken.input,
  bodyFromPath: ["tenant", "serviceAccount", "prefix"],
  response: newTokenOut,
  status: 201,
  handler: (ctx, { params, body }) => executeCommand(rotateToken, ctx, commandInput(body, params)),
});
