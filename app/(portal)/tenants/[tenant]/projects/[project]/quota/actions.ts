"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formAction } from "@/lib/auth/form-action";
import type { FormState } from "@/lib/form-state";
import { cancelQuotaRequest, createQuotaRequest, requestPath } from "@/lib/quota/commands/requests";
import { setProjectSharing } from "@/lib/quota/commands/sharing";
import { wakeWorker } from "@/lib/jobs/in-process";

/** Server actions of a project's quota pages: each one is a command behind the shared wrapper. */

const refresh = () => revalidatePath("/", "layout");

/** Submit a request and go to its page, which says whether it was approved automatically. */
export async function createQuotaRequestAction(previous: FormState, formData: FormData): Promise<FormState> {
  // The command checked these against the project it created the request on.
  const text = (name: string) => {
    const v = formData.get(name);
    return typeof v === "string" ? v : "";
  };
  const tenant = text("tenant");
  const project = text("project");
  return formAction(createQuotaRequest, (r) => {
    if (r.autoApproved) wakeWorker();
    refresh();
    redirect(`${requestPath(tenant, project, r.request.id)}?submitted=${r.autoApproved ? "auto" : "pending"}`);
  })(previous, formData);
}

export const cancelQuotaRequestAction = formAction(cancelQuotaRequest, () => {
  refresh();
  return { message: "Request cancelled." };
});

export const setProjectSharingAction = formAction(setProjectSharing, () => {
  wakeWorker();
  refresh();
  return { message: "Sharing saved; the cluster follows." };
});
