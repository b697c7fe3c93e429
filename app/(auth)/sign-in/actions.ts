"use server";

import { z } from "zod";
import { callbackPath, safeCallbackPath } from "@/lib/auth/callback-path";
import { signIn } from "@/lib/auth/nextauth";
import { DEMO_PERSONAS } from "@/lib/demo/personas";

const personaInput = z.object({
  persona: z.enum(DEMO_PERSONAS.map((p) => p.key) as [string, ...string[]]),
  callbackUrl: callbackPath,
});

export async function signInAsPersona(formData: FormData): Promise<void> {
  const input = personaInput.parse({ persona: formData.get("persona"), callbackUrl: formData.get("callbackUrl") ?? "/" });
  await signIn("demo", { persona: input.persona, redirectTo: input.callbackUrl });
}

export async function signInWithOidc(formData: FormData): Promise<void> {
  const redirectTo = safeCallbackPath(formData.get("callbackUrl"));
  await signIn("oidc", { redirectTo });
}
