import "server-only";
import { headers } from "next/headers";
import { config } from "@/lib/config";

/** An absolute URL on this portal: AUTH_URL when configured, else the request's own host. */
export async function absoluteUrl(path: string): Promise<string> {
  const configured = config().publicUrl;
  if (configured) return new URL(path, configured).toString();
  const h = await headers();
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost:3000";
  const proto = h.get("x-forwarded-proto") ?? (host.startsWith("localhost") || host.startsWith("127.") ? "http" : "https");
  return new URL(path, `${proto}://${host}`).toString();
}
