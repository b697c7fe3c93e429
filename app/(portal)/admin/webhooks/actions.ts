"use server";

import { revalidatePath } from "next/cache";
import { formAction } from "@/lib/auth/form-action";
import { createWebhook, deleteWebhook } from "@/lib/notify/webhook-commands";

export const createWebhookAction = formAction(createWebhook, (hook) => {
  revalidatePath("/admin/webhooks");
  return { reveal: { label: "Signing secret", value: hook.secret, note: "Shown once. The receiver checks X-Allot-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of \"<t>.<body>\"> with it." } };
});
export const deleteWebhookAction = formAction(deleteWebhook, () => revalidatePath("/admin/webhooks"));
