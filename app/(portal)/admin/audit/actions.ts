"use server";

import { verifyAuditChainCommand, writeAuditCheckpointCommand } from "@/lib/audit/commands";
import { formAction } from "@/lib/auth/form-action";

export const verifyAuditChainAction = formAction(verifyAuditChainCommand, (result) => ({
  // A chain found damaged is shown as an alert, not as a success.
  status: result.summary.status === "failed" ? "error" : "ok",
  message: result.summary.lines.join("\n"),
}));

export const writeAuditCheckpointAction = formAction(writeAuditCheckpointCommand, (result) => {
  if (!result.written) {
    const why = { not_configured: "no checkpoint key is configured", empty: "the audit log is empty", unchanged: "the head is checkpointed already" } as const;
    return { status: "error", message: `No checkpoint written: ${result.reason === "refused" ? result.detail : why[result.reason]}.` };
  }
  const places = [result.logged ? "the log stream" : null, result.file ? result.file.path : null, result.webhook?.delivered ? "the webhook" : null].filter(Boolean);
  const webhookFailed = result.webhook && !result.webhook.delivered ? ` The webhook did not take it after ${result.webhook.attempts} attempts: ${result.webhook.error}.` : "";
  return {
    status: webhookFailed ? "error" : "ok",
    message: `Checkpoint signed at event ${result.checkpoint.seq} (key ${result.checkpoint.keyId}) and written to ${places.join(", ") || "nowhere"}.${webhookFailed}`,
  };
});
