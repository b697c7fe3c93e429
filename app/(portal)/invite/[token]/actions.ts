"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formAction } from "@/lib/auth/form-action";
import { acceptInvitation } from "@/lib/tenancy/commands/accept-invitation";

export const acceptInvitationAction = formAction(acceptInvitation, (result) => {
  revalidatePath("/", "layout");
  redirect(result.projectSlug ? `/tenants/${result.tenantSlug}/projects/${result.projectSlug}` : `/tenants/${result.tenantSlug}`);
});
