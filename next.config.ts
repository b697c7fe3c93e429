import type { NextConfig } from "next";

// Headers that do not vary per request; the CSP (which carries a nonce) is set in proxy.ts.
const securityHeaders = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
];

// The container image (Containerfile) builds with ALLOT_STANDALONE=1: a self-contained server in
// .next/standalone holding only the files it needs. Other builds stay as they are, so `npm start`
// and the Playwright run keep using `next start` (which warns on a standalone build).
const standalone = process.env.ALLOT_STANDALONE === "1";

const nextConfig: NextConfig = {
  // PGlite loads its WebAssembly and data files from its own package directory.
  serverExternalPackages: ["@electric-sql/pglite"],
  ...(standalone
    ? {
        output: "standalone" as const,
        // No page uses next/image, so the image optimiser's sharp and libvips (19 MB) stay out of the image.
        outputFileTracingExcludes: { "*": ["node_modules/sharp/**", "node_modules/@img/**"] },
        // The API reference's browser bundle is read from disk by its route (app/(portal)/api-docs/scalar.js).
        outputFileTracingIncludes: { "/api-docs/scalar.js": ["./node_modules/@scalar/api-reference/dist/browser/standalone.js"] },
      }
    : {}),
  images: { unoptimized: true },
  poweredByHeader: false,
  typedRoutes: false,
  headers: () => Promise.resolve([{ source: "/:path*", headers: securityHeaders }]),
};

export default nextConfig;
