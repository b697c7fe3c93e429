import { redirect } from "next/navigation";
import { buttonClass } from "@/components/button-class";
import { currentActor } from "@/lib/auth/current-actor";
import { config } from "@/lib/config";
import { DEMO_PERSONAS } from "@/lib/demo/personas";
import { safeRedirectPath } from "@/lib/security/redirect";
import { signInAsPersona, signInWithOidc } from "./actions";

export const metadata = { title: "Sign in" };

const ERRORS: Record<string, string> = {
  CredentialsSignin: "That demo persona is not available in this installation.",
  AccessDenied: "Your account is not allowed to sign in. Ask a platform admin.",
  Configuration: "Sign-in failed. If this persists, ask a platform admin to check the identity provider settings.",
};

type SearchParams = Promise<{ callbackUrl?: string | string[]; error?: string | string[] }>;

export default async function SignInPage({ searchParams }: { searchParams: SearchParams }) {
  const { callbackUrl: rawCallback, error: rawError } = await searchParams;
  // Only the codes next-auth sends are shown by name; anything else reads as a configuration problem.
  const error = typeof rawError === "string" && rawError !== "" ? (Object.hasOwn(ERRORS, rawError) ? ERRORS[rawError] : ERRORS.Configuration) : undefined;
  const c = config();
  const callbackUrl = safeRedirectPath(rawCallback, c.publicUrl);
  if (await currentActor()) redirect(callbackUrl);

  return (
    <main className="mx-auto flex min-h-screen max-w-3xl flex-col justify-center px-6 py-12">
      <div className="mb-8 flex items-center gap-2 text-xl font-semibold text-brand-900">
        <span aria-hidden className="inline-block h-6 w-6 rounded bg-brand-600" />
        Allot
      </div>
      <h1 className="text-2xl font-semibold tracking-tight">Sign in</h1>
      <p className="mt-1 text-sm text-slate-600">Quota, access and cost for the shared ML platform.</p>
      {error && (
        <p role="alert" className="mt-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-800">
          {error}
        </p>
      )}

      {c.oidc && (
        <form action={signInWithOidc} className="mt-6">
          <input type="hidden" name="callbackUrl" value={callbackUrl} />
          <button type="submit" className={`${buttonClass("primary")} w-full py-2.5`}>
            Sign in with {c.oidc.displayName}
          </button>
        </form>
      )}

      {c.demoSignIn && (
        <section className="mt-8" aria-labelledby="demo-heading">
          <h2 id="demo-heading" className="text-sm font-semibold uppercase tracking-wide text-slate-500">
            Demo personas
          </h2>
          <p className="mt-1 text-sm text-slate-600">This installation runs with demo data. Pick a person to see the portal as they do.</p>
          <ul className="mt-4 grid gap-3 sm:grid-cols-2">
            {DEMO_PERSONAS.map((p) => (
              <li key={p.key}>
                <form action={signInAsPersona}>
                  <input type="hidden" name="persona" value={p.key} />
                  <input type="hidden" name="callbackUrl" value={callbackUrl} />
                  <button
                    type="submit"
                    className="w-full rounded-lg border border-slate-200 bg-white p-4 text-left shadow-sm transition hover:border-brand-600 hover:shadow"
                  >
                    {/* The accessible name starts with what the button does and contains all it shows. */}
                    <span className="block font-medium text-slate-900">
                      <span className="sr-only">Sign in as </span>
                      {p.name}
                    </span>
                    <span className="block text-sm text-brand-700">{p.title}</span>
                    <span className="mt-1 block text-xs text-slate-500">{p.summary}</span>
                  </button>
                </form>
              </li>
            ))}
          </ul>
        </section>
      )}

      {!c.oidc && !c.demoSignIn && (
        <p role="alert" className="mt-6 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">
          No sign-in method is configured. Set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, or ALLOT_DEMO=1.
        </p>
      )}
    </main>
  );
}
