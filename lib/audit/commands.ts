import "server-only";
import { z } from "zod";
import { defineCommand } from "@/lib/auth/command";
import { config } from "@/lib/config";
import { writeAuditCheckpoint } from "./checkpoint-writer";
import { describeAuditVerification } from "./describe-verification";
import { verifyAuditLog } from "./verify-with-checkpoints";

/**
 * Re-hash the whole log and check its end against the signed checkpoints in
 * the configured directory (platform admins).
 */
export const verifyAuditChainCommand = defineCommand({
  name: "verifyAuditChain",
  input: z.object({}),
  target: () => Promise.resolve({ action: "audit.verify", resource: { kind: "platform" } }),
  run: async (ctx) => {
    const c = config().auditCheckpoints;
    const verification = await verifyAuditLog(ctx.db, { publicKey: c.publicKey, dir: c.dir });
    return { ...verification, summary: describeAuditVerification(verification) };
  },
});

/** Sign the head now, even if it has not moved since the last checkpoint (platform admins). */
export const writeAuditCheckpointCommand = defineCommand({
  name: "writeAuditCheckpoint",
  input: z.object({}),
  target: () => Promise.resolve({ action: "audit.checkpoint", resource: { kind: "platform" } }),
  run: async (ctx) => {
    const result = await writeAuditCheckpoint(ctx.db, config().auditCheckpoints, { now: ctx.now, force: true });
    // The page waits for the webhook, so the admin learns whether it took the checkpoint.
    return result.written ? { ...result, webhook: result.webhook ? await result.webhook : null } : result;
  },
});
