import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { TimeZoneCookie } from "@/components/time-zone-cookie";
import { TIME_ZONE_COOKIE, viewerTimeZone } from "@/lib/server/time-zone";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Allot", template: "%s · Allot" },
  description: "Quota, access and cost for the shared ML platform",
  icons: { icon: "/favicon.svg" },
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request, so each carries the CSP nonce set in proxy.ts.
  await connection();
  const zone = await viewerTimeZone();
  return (
    <html lang="en">
      <body className="min-h-screen">
        {children}
        <TimeZoneCookie name={TIME_ZONE_COOKIE} rendered={zone} />
      </body>
    </html>
  );
}
