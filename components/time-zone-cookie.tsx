"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/**
 * Tells the server the browser's time zone, for lib/server/time-zone.ts. On the
 * first page seen (the sign-in page, mostly) the cookie is written and, if the
 * page was rendered in another zone, refreshed once. A zone the server refuses
 * leaves the cookie equal to the browser's, so no second refresh follows.
 */
export function TimeZoneCookie({ name, rendered }: { name: string; rendered: string }) {
  const router = useRouter();
  useEffect(() => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!zone) return;
    const current = document.cookie
      .split("; ")
      .find((c) => c.startsWith(`${name}=`))
      ?.slice(name.length + 1);
    if (current === zone) return;
    const secure = window.location.protocol === "https:" ? "; secure" : "";
    document.cookie = `${name}=${zone}; path=/; max-age=31536000; samesite=lax${secure}`;
    if (zone !== rendered) router.refresh();
  }, [name, rendered, router]);
  return null;
}
