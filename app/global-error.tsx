"use client";

export default function GlobalError({ error }: { error: Error & { digest?: string } }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", textAlign: "center", padding: "6rem 1.5rem" }}>
        <h1>Something went wrong</h1>
        <p>The problem has been logged. Reference: {error.digest ?? "unavailable"}</p>
      </body>
    </html>
  );
}
