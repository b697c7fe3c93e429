import "server-only";
import { z } from "zod";
import { apiRoute } from "../route";

export const me = apiRoute({
  method: "GET",
  path: "/api/v1/me",
  summary: "Who the token belongs to",
  tag: "Identity",
  params: z.object({}),
  response: z.object({ principalId: z.string(), kind: z.enum(["user", "service_account"]), displayName: z.string(), isPlatformAdmin: z.boolean() }),
  handler: (ctx) => Promise.resolve(ctx.actor),
});
