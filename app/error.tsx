"use client";

/** Unexpected server errors: a short message and the reference id that is in the server log. */
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main className="mx-auto max-w-xl px-6 py-24 text-center">
      <h1 className="text-2xl font-semibold">Something went wrong</h1>
      <p className="mt-2 text-slate-600">The problem has been logged. If it persists, give this reference to your platform team.</p>
      <p className="mt-4 font-mono text-sm text-slate-800">Reference: {error.digest ?? "unavailable"}</p>
      <button type="button" onClick={reset} className="mt-6 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium shadow-sm hover:bg-slate-50">
        Try again
      </button>
    </main>
  );
}
