"use server";

import { signOut } from "@/lib/auth/nextauth";

/** Ends the server-side session (events.signOut) and clears the cookie. */
export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/sign-in" });
}
