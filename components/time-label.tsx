import type { ReactNode } from "react";
import type { InstantLabel } from "@/lib/format";

/** The <time> element of every instant on a page (components/time.tsx); client components get the label made on the server. */
export function TimeLabel({ label, className, children }: { label: InstantLabel; className?: string; children?: ReactNode }) {
  return (
    <time dateTime={label.iso} title={label.utc} className={className}>
      {children ?? label.text}
    </time>
  );
}
