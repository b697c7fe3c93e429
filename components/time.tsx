import type { ReactNode } from "react";
import { labelInstant } from "@/lib/format";
import { viewerTimeZone } from "@/lib/server/time-zone";
import { TimeLabel } from "./time-label";

/**
 * One instant on a page: in the viewer's time zone, the exact UTC time on
 * hover (title) and to machines (dateTime). A server component, so the text
 * is rendered once, on the server, and never re-rendered in the browser: no
 * hydration mismatch whatever the browser's own clock or ICU. `children`
 * replace the words (a relative "3 days ago"), keeping the title.
 */
export async function Time({ at, day = false, className, children }: { at: Date; /** The calendar day only. */ day?: boolean; className?: string; children?: ReactNode }) {
  return (
    <TimeLabel label={labelInstant(at, await viewerTimeZone(), day)} className={className}>
      {children}
    </TimeLabel>
  );
}
