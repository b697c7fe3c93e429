"use server";

import { revalidatePath } from "next/cache";
import { formAction } from "@/lib/auth/form-action";
import { markNotificationsRead } from "@/lib/notify/commands";

/** Marking notices read changes the bell in the header: refresh the whole layout. */
export const markNotificationsReadAction = formAction(markNotificationsRead, (r) => {
  revalidatePath("/", "layout");
  return { message: r.marked === 0 ? "Nothing left unread." : `Marked ${r.marked} read.` };
});
