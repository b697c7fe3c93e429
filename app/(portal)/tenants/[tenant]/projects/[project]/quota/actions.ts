"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formAction } from "@/lib/auth/form-action";
import type { FormState } from "@/lib/form-state";
import { commentOnQuotaRequest } from "@/lib/quota/commands/request-comments";
import { editQuotaRequest } from "@/lib/quota/commands/request-edits";
import { requestQuotaExtension } from "@/lib/quota/commands/extensions";
import { cancelQuotaRequest, createQuotaRequest, requestPath } from "@/lib/quota/commands/requests";
import { setProjectSharing } from "@/lib/quota/commands/sharing";
import { wakeWorker } from "@/lib/jobs/in-process";

/** Server actions of a project's quota pages: each one is a command behind the shared wrapper. */

const refresh = () => revalidatePath("/", "layout");

/** A form field as text, for the redirect after success (the command has checked what it acted on). */
function textField(formData: FormData, name: string): string {
  const v = formData.get(name);
  return typeof v === "string" ? v : "";
}

/** Submit a request and go to its page, which says whether it was approved automatically. */
export async function createQuotaRequestAction(previous: FormState, formData: FormData): Promise<FormState> {
  // The command checked these against the project it created the request on.
  const tenant = textField(formData, "tenant");
  const project = textField(formData, "project");
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

/** Save an edit as the request's next revision and go back to the request, which shows what changed. */
export async function editQuotaRequestAction(previous: FormState, formData: FormData): Promise<FormState> {
  const tenant = textField(formData, "tenant");
  const project = textField(formData, "project");
  return formAction(editQuotaRequest, (r) => {
    refresh();
    redirect(`${requestPath(tenant, project, r.request.id)}?edited=${r.request.revision}`);
  })(previous, formData);
}

export const commentOnQuotaRequestAction = formAction(commentOnQuotaRequest, () => {
  refresh();
  return { message: "Comment sent; the other side is notified." };
});

/** Ask to keep a time-bound grant longer and go to the request, which waits for a platform admin. */
export async function requestQuotaExtensionAction(previous: FormState, formData: FormData): Promise<FormState> {
  const tenant = textField(formData, "tenant");
  const project = textField(formData, "project");
  return formAction(requestQuotaExtension, (r) => {
    refresh();
    redirect(`${requestPath(tenant, project, r.request.id)}?submitted=extension`);
  })(previous, formData);
}
