"use client";

import { useEffect, useRef, useState } from "react";

/**
 * The interactive API reference (Scalar), drawn into this element from the
 * OpenAPI document. The renderer is loaded from our own origin by a script
 * element this component adds: under the CSP's 'strict-dynamic', a script
 * added by the page's own nonce-carrying code may run, so neither a nonce in
 * markup nor 'unsafe-inline' / 'unsafe-eval' is needed. Nothing leaves the
 * origin: no fonts from Scalar's CDN, no request proxy, no agent or telemetry.
 */

type ScalarApp = { destroy?: () => void };
type ScalarGlobal = { createApiReference: (element: Element, config: Record<string, unknown>) => ScalarApp };

const SCRIPT_SRC = "/api-docs/scalar.js";

/**
 * Two of Scalar's own styles fail axe (serious), which the journeys enforce on
 * every page: the client-library tab labels are too light to read (contrast),
 * and code samples scroll sideways in a box a keyboard cannot reach. The labels
 * are drawn darker, and samples wrap instead of scrolling, which also keeps
 * them inside a phone's width.
 */
const SCALAR_ACCESSIBILITY_CSS = `
.client-libraries-text { color: #334155 !important; }
pre code.custom-scroll { white-space: pre-wrap !important; overflow-wrap: anywhere !important; overflow: visible !important; }
`;

function loadScalar(): Promise<ScalarGlobal> {
  const existing = (window as unknown as { Scalar?: ScalarGlobal }).Scalar;
  if (existing) return Promise.resolve(existing);
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = SCRIPT_SRC;
    script.async = true;
    script.onload = () => {
      const scalar = (window as unknown as { Scalar?: ScalarGlobal }).Scalar;
      if (scalar) resolve(scalar);
      else reject(new Error("The reference renderer did not start."));
    };
    script.onerror = () => reject(new Error("The reference renderer could not be loaded."));
    document.head.append(script);
  });
}

export function ApiReference({ documentUrl }: { documentUrl: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    let app: ScalarApp | undefined;
    let cancelled = false;
    // The document and the renderer load side by side, rather than the renderer fetching the document once it has started.
    const description = fetch(documentUrl, { headers: { Accept: "application/json" } }).then((res) => {
      if (!res.ok) throw new Error(`The API description could not be loaded (${res.status}).`);
      return res.json() as Promise<unknown>;
    });
    Promise.all([loadScalar(), description])
      .then(([scalar, content]) => {
        if (cancelled || !host.current) return;
        app = scalar.createApiReference(host.current, {
          content,
          withDefaultFonts: false,
          hideDarkModeToggle: true,
          forceDarkModeState: "light",
          hideClientButton: false,
          showDeveloperTools: "never",
          agent: { disabled: true },
          mcp: { disabled: true },
          telemetry: false,
          documentDownloadType: "json",
          authentication: { preferredSecurityScheme: "bearer" },
          customCss: SCALAR_ACCESSIBILITY_CSS,
        });
      })
      .catch((e: unknown) => setFailure(e instanceof Error ? e.message : String(e)));
    return () => {
      cancelled = true;
      app?.destroy?.();
    };
  }, [documentUrl]);
  return (
    <>
      {failure && (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          {failure} The document itself is at{" "}
          <a className="underline" href={documentUrl}>
            {documentUrl}
          </a>
          .
        </div>
      )}
      <div ref={host} data-testid="api-reference" data-owns-search-shortcut className="min-h-96" />
    </>
  );
}
