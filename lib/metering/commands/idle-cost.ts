import "server-only";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { instanceSettings } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf } from "@/lib/auth/context";
import { IDLE_COST_MODES } from "../chargeback";
import { IDLE_COST_KEY, idleModeAt, loadIdleModeHistory, nextUtcDay, storedChanges, type IdleModeChange } from "../idle-mode";
import { oneOf } from "@/lib/input/messages";

export const idleCostInput = z.object({
  mode: z.enum(IDLE_COST_MODES, { message: oneOf(IDLE_COST_MODES) }),
});

/**
 * Choose how idle capacity cost is reported from the next UTC day on: apart,
 * or charged back to tenants by their guarantees. Days already begun keep
 * the rule they are being reported under. Choosing again the same day
 * replaces that day's pending choice; choosing the rule already in force
 * for tomorrow changes nothing and records nothing.
 */
export const setIdleCostMode = defineCommand({
  name: "setIdleCostMode",
  input: idleCostInput,
  target: () => Promise.resolve({ action: "platform.idle_cost.manage" as const, resource: { kind: "platform" as const } }),
  async run(ctx, input) {
    return ctx.db.transaction(async (tx) => {
      // Serialise writers, so the "before" in the audit log is what each one replaced.
      await tx.select({ key: instanceSettings.key }).from(instanceSettings).where(eq(instanceSettings.key, IDLE_COST_KEY)).for("update");
      const history = await loadIdleModeHistory(tx);
      const effectiveFrom = nextUtcDay(ctx.now);
      if (idleModeAt(history, effectiveFrom) === input.mode) return { mode: input.mode, effectiveFrom, changed: false };
      const kept = history.changes.filter((c) => c.effectiveFrom < effectiveFrom);
      const changes: IdleModeChange[] = idleModeAt({ ...history, changes: kept }, effectiveFrom) === input.mode ? kept : [...kept, { mode: input.mode, effectiveFrom }];
      await tx
        .insert(instanceSettings)
        .values({ key: IDLE_COST_KEY, value: storedChanges(changes), updatedAt: ctx.now })
        .onConflictDoUpdate({ target: instanceSettings.key, set: { value: storedChanges(changes), updatedAt: ctx.now } });
      await recordAudit(tx, {
        actor: auditActorOf(ctx.actor),
        at: ctx.now,
        tenantId: null,
        action: "idle_cost.mode_changed",
        target: { type: "instance_setting", id: IDLE_COST_KEY },
        before: { mode: idleModeAt(history, effectiveFrom), changes: storedChanges(history.changes).changes },
        after: { mode: input.mode, effectiveFrom: effectiveFrom.toISOString(), changes: storedChanges(changes).changes },
      });
      return { mode: input.mode, effectiveFrom, changed: true };
    });
  },
});
