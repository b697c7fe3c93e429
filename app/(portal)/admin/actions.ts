"use server";

import { revalidatePath } from "next/cache";
import { formAction } from "@/lib/auth/form-action";
import { createTenant } from "@/lib/tenancy/commands/create-tenant";

export const createTenantAction = formAction(createTenant, () => {
  revalidatePath("/admin");
});
