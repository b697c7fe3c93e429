"use server";

import { revalidatePath } from "next/cache";
import { formAction } from "@/lib/auth/form-action";
import { formatDateTime } from "@/lib/format";
import { viewerTimeZone } from "@/lib/server/time-zone";
import { requestExtension } from "@/lib/tenancy/commands/extensions";

/** The holder's request for more time: a command behind the shared wrapper. */
export const requestExtensionAction = formAction(requestExtension, async (r) => {
  revalidatePath("/", "layout");
  return { message: `Asked for access until ${formatDateTime(r.requestedUntil, await viewerTimeZone())}. Your sponsor and the tenant's admins have been told.` };
});
