"use server";

import { redirect } from "next/navigation";
import { z } from "zod";
import { signIn } from "@/lib/auth/nextauth";
import { config } from "@/lib/config";
import { DEMO_PERSONAS } from "@/lib/demo/personas";
import { safeRedirectPath } from "@/lib/security/redirect";

const persona = z.enum(DEMO_PERSONAS.map((p) => p.key) as [string, ...string[]]);

/** Where to go after signing in: a path on this portal, judged as the browser will follow it. */
function callbackOf(formData: FormData): string {
  return safeRedirectPath(formData.get("callbackUrl") ?? "/", config().publicUrl);
}

export async function signInAsPersona(formData: FormData): Promise<void> {
  const redirectTo = callbackOf(formData);
  const chosen = persona.safeParse(formData.get("persona"));
  // A form posted by hand with a persona that does not exist: the page says so, not a 500.
  if (!chosen.success) redirect(`/sign-in?error=CredentialsSignin&callbackUrl=${encodeURIComponent(redirectTo)}`);
  await signIn("demo", { persona: chosen.data, redirectTo });
}

export async function signInWithOidc(formData: FormData): Promise<void> {
  await signIn("oidc", { redirectTo: callbackOf(formData) });
}
