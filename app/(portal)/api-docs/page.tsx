import { ApiReference } from "@/components/api-reference";
import { PageHeader } from "@/components/ui";

export const metadata = { title: "API" };

/**
 * The REST API reference, drawn in the browser from the same OpenAPI document
 * that /api/v1/openapi.json serves (lib/api/openapi.ts): searchable, with how
 * to get a token and a curl example per operation.
 */
export default function ApiDocsPage() {
  return (
    <>
      <PageHeader
        title="REST API"
        subtitle={
          <>
            Search with the box on the left or <kbd className="font-mono text-xs">Ctrl K</kbd>. The machine-readable description is at{" "}
            <a className="text-brand-700 underline" href="/api/v1/openapi.json">
              /api/v1/openapi.json
            </a>{" "}
            (OpenAPI 3.1).
          </>
        }
      />
      <ApiReference documentUrl="/api/v1/openapi.json" />
    </>
  );
}
