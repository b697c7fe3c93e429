import { Card, PageHeader } from "@/components/ui";
import { buildOpenApiDocument } from "@/lib/api/openapi";
import { API_ROUTES } from "@/lib/api/registry";
import { absoluteUrl } from "@/lib/server/request-url";

export const metadata = { title: "API" };

// As the OpenAPI document has them: an operation without parameters has none listed, and a body may be other than JSON.
type Operation = { summary: string; parameters?: { name: string; in: string; required: boolean }[]; requestBody?: { content: Record<string, { schema?: unknown }> } };

/** The REST API, rendered from the same OpenAPI document that /api/v1/openapi.json serves. */
export default async function ApiDocsPage() {
  const origin = new URL(await absoluteUrl("/")).origin;
  const doc = buildOpenApiDocument(API_ROUTES, origin);
  const byTag = new Map<string, { path: string; method: string; op: Operation }[]>();
  for (const [path, methods] of Object.entries(doc.paths).sort(([a], [b]) => a.localeCompare(b))) {
    for (const [method, op] of Object.entries(methods as Record<string, Operation & { tags: string[] }>)) {
      const tag = op.tags[0] ?? "Other";
      byTag.set(tag, [...(byTag.get(tag) ?? []), { path, method, op }]);
    }
  }
  return (
    <>
      <PageHeader
        title="REST API"
        subtitle={
          <>
            Authenticate with a service account token: <code className="font-mono text-xs">Authorization: Bearer allot_…</code>. The machine-readable description is at{" "}
            <a className="text-brand-700 underline" href="/api/v1/openapi.json">
              /api/v1/openapi.json
            </a>{" "}
            (OpenAPI 3.1). Errors are <code className="font-mono text-xs">{"{ error: { code, message, fields? } }"}</code>.
          </>
        }
      />
      <div className="space-y-6">
        {[...byTag.entries()].map(([tag, ops]) => (
          <Card key={tag} title={tag}>
            <ul className="divide-y divide-slate-100">
              {ops.map(({ path, method, op }) => (
                <li key={`${method} ${path}`} className="py-3">
                  <p className="font-mono text-sm">
                    <span className="mr-2 inline-block w-16 font-semibold uppercase text-brand-700">{method}</span>
                    {path}
                  </p>
                  <p className="mt-1 text-sm text-slate-700">{op.summary}</p>
                  {(op.parameters ?? []).some((p) => p.in === "query") && (
                    <p className="mt-1 text-xs text-slate-500">Query: {(op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name).join(", ")}</p>
                  )}
                  {op.requestBody && (
                    <details className="mt-1">
                      <summary className="cursor-pointer text-xs text-brand-700">Request body</summary>
                      <pre className="mt-1 overflow-x-auto rounded bg-slate-50 p-2 text-xs">{JSON.stringify(Object.values(op.requestBody.content)[0]?.schema, null, 2)}</pre>
                    </details>
                  )}
                </li>
              ))}
            </ul>
          </Card>
        ))}
      </div>
    </>
  );
}
