"use server";

import { verifyAuditChainCommand } from "@/lib/audit/commands";
import { formAction } from "@/lib/auth/form-action";

export const verifyAuditChainAction = formAction(verifyAuditChainCommand, (result) =>
  result.intact
    ? { message: `Chain intact: ${result.events} events verified.` }
    : { message: `Chain BROKEN at event ${result.broken.seq}: ${result.broken.reason}. ${result.events} events before it verified.` },
);
