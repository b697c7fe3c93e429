import "server-only";
import { z } from "zod";
import { defineCommand } from "@/lib/auth/command";
import { verifyAuditChain } from "./verify";

/** Re-hash the whole log (platform admins): reports intact, or the first broken event. */
export const verifyAuditChainCommand = defineCommand({
  name: "verifyAuditChain",
  input: z.object({}),
  target: () => Promise.resolve({ action: "audit.verify", resource: { kind: "platform" } }),
  run: (ctx) => verifyAuditChain(ctx.db),
});
