"use server";

import { revalidatePath } from "next/cache";
import { formAction } from "@/lib/auth/form-action";
import { setIdleCostMode } from "@/lib/metering/commands/idle-cost";

const day = (d: Date) => d.toISOString().slice(0, 10);

/** The platform spend page's rule form: idle shown apart or charged back, from the next UTC day. */
export const setIdleCostModeAction = formAction(setIdleCostMode, (result) => {
  revalidatePath("/", "layout");
  if (!result.changed) return { message: `That is already the rule from ${day(result.effectiveFrom)}: nothing changed.` };
  return { message: result.mode === "chargeback" ? `Idle will be charged back to tenants from ${day(result.effectiveFrom)} (UTC).` : `Idle will be shown apart from ${day(result.effectiveFrom)} (UTC).` };
});
