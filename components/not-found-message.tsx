import Link from "next/link";

/** What a 404 says; the same whether the page does not exist or is out of the person's reach. */
export function NotFoundMessage() {
  return (
    <div className="mx-auto max-w-xl px-6 py-24 text-center">
      <p className="text-sm font-semibold text-brand-700">404</p>
      <h1 className="mt-2 text-2xl font-semibold">Not found</h1>
      <p className="mt-2 text-slate-600">This page does not exist, or you do not have access to it.</p>
      <Link href="/" className="mt-6 inline-block text-sm font-medium text-brand-700 hover:underline">
        Back to my tenants
      </Link>
    </div>
  );
}
