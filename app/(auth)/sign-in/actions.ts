"use server";

import { z } from "zod";
import { signIn } from "@/lib/auth/nextauth";
import { DEMO_PERSONAS } from "@/lib/demo/personas";

/** Only same-site paths: a callback URL must never send someone to another origin. */
const callbackPath = z
  .string()
  .regex(/^\/(?![/\\])/)
  .catch("/");

const personaInput = z.object({
  persona: z.enum(DEMO_PERSONAS.map((p) => p.key) as [string, ...string[]]),
  callbackUrl: callbackPath,
});

export async function signInAsPersona(formData: FormData): Promise<void> {
  const input = personaInput.parse({ persona: formData.get("persona"), callbackUrl: formData.get("callbackUrl") ?? "/" });
  await signIn("demo", { persona: input.persona, redirectTo: input.callbackUrl });
}

export async function signInWithOidc(formData: FormData): Promise<void> {
  const redirectTo = callbackPath.parse(formData.get("callbackUrl") ?? "/");
  await signIn("oidc", { redirectTo });
}
