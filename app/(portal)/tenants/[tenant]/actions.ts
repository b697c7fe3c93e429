"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formAction } from "@/lib/auth/form-action";
import { createProject } from "@/lib/tenancy/commands/create-project";

export const createProjectAction = formAction(createProject, (project) => {
  revalidatePath(`/tenants/${project.tenantSlug}`);
  redirect(`/tenants/${project.tenantSlug}/projects/${project.slug}`);
});
