"use server";

import { revalidatePath } from "next/cache";
import { formAction } from "@/lib/auth/form-action";
import { wakeWorker } from "@/lib/jobs/in-process";
import type { FormState } from "@/lib/form-state";
import { approveQuotaRequest, rejectQuotaRequest } from "@/lib/quota/commands/requests";

/** Decisions on quota requests, from the approval queue and from a request's page. */

const refresh = () => revalidatePath("/", "layout");

const approve = formAction(approveQuotaRequest, (r) => {
  // A completed approval enqueued the project's cluster change: let the in-process worker take it now.
  if (r.complete) wakeWorker();
  refresh();
  return { message: r.complete ? "Approved. The grant is written and the cluster change queued." : "First approval recorded. A second, different platform admin must approve too." };
});

/**
 * "Approve" and "Approve with changes" post the same form. The end date comes
 * prefilled with what was asked (or empty for a permanent request): left as
 * it was, it is not sent, so the grant ends exactly when asked, to the second.
 */
export async function approveQuotaRequestAction(previous: FormState, formData: FormData): Promise<FormState> {
  const endsAt = formData.get("endsAt");
  if (endsAt === "" || (endsAt !== null && endsAt === formData.get("askedEndsAt"))) formData.delete("endsAt");
  formData.delete("askedEndsAt");
  return approve(previous, formData);
}

export const rejectQuotaRequestAction = formAction(rejectQuotaRequest, () => {
  refresh();
  return { message: "Rejected. The requester is told why." };
});
