"use server";

import { revalidatePath } from "next/cache";
import { formAction } from "@/lib/auth/form-action";
import { createTenant } from "@/lib/tenancy/commands/create-tenant";
import { setTenantStatus } from "@/lib/tenancy/commands/set-tenant-status";

const refresh = () => revalidatePath("/", "layout");

export const createTenantAction = formAction(createTenant, refresh);
export const setTenantStatusAction = formAction(setTenantStatus, refresh);
