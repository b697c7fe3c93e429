"use server";

import { revalidatePath } from "next/cache";
import { formAction } from "@/lib/auth/form-action";
import { approveTenantRequest, cancelTenantRequest, rejectTenantRequest, requestTenant } from "@/lib/quota/commands/tenant-requests";

/** Server actions for onboarding by request: asking (anyone signed in) and deciding (platform admins). */
const refresh = () => revalidatePath("/", "layout");

export const requestTenantAction = formAction(requestTenant, () => {
  refresh();
  return { message: "Your request is in the platform team's queue. You will be told here when it is decided." };
});
export const cancelTenantRequestAction = formAction(cancelTenantRequest, refresh);
export const approveTenantRequestAction = formAction(approveTenantRequest, (row) => {
  refresh();
  return { message: `Tenant ${row.slug} created with its first project; the cluster follows within seconds.` };
});
export const rejectTenantRequestAction = formAction(rejectTenantRequest, refresh);
