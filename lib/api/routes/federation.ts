import "server-only";
import { z } from "zod";
import { executeCommand } from "@/lib/auth/command";
import { AppError } from "@/lib/errors";
import { createTrust, revokeTrust } from "@/lib/federation/commands";
import { apiRoute, commandInput } from "../route";
import { okOut, trustOut } from "../schemas";
import { accountParams, oneAccount } from "./service-accounts";

/** Trusted external OIDC issuers of a service account (keyless automation, lib/federation); tenant admins only. */

const trustParams = accountParams.extend({ trust: z.string().max(64) });

export const listTrusts = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/trusts",
  summary: "External OIDC issuers the service account trusts, whose tokens POST /oauth/token exchanges for short-lived tokens (tenant admins)",
  tag: "Service accounts",
  params: accountParams,
  response: z.object({ trusts: z.array(trustOut) }),
  async handler(ctx, { params }) {
    const { account, canManage } = await oneAccount(ctx, params);
    if (!canManage) throw new AppError("forbidden");
    return { trusts: account.trusts };
  },
});

export const createTrustRoute = apiRoute({
  method: "POST",
  path: "/api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/trusts",
  summary: "Trust an OIDC issuer for this account: tokens from it for the audience, whose subject and claims match, are exchanged at POST /oauth/token",
  tag: "Service accounts",
  params: accountParams,
  body: createTrust.input,
  bodyFromPath: ["tenant", "serviceAccount"],
  response: trustOut,
  status: 201,
  async handler(ctx, { params, body }) {
    const created = await executeCommand(createTrust, ctx, commandInput(body, params));
    const { account } = await oneAccount(ctx, params);
    return account.trusts.find((t) => t.name === created.name);
  },
});

export const revokeTrustRoute = apiRoute({
  method: "DELETE",
  path: "/api/v1/tenants/{tenant}/service-accounts/{serviceAccount}/trusts/{trust}",
  summary: "Revoke a trust now, with every token exchanged under it",
  tag: "Service accounts",
  params: trustParams,
  response: okOut,
  async handler(ctx, { params }) {
    await executeCommand(revokeTrust, ctx, params);
    return { ok: true };
  },
});
