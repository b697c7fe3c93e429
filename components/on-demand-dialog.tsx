"use client";

import * as Dialog from "@radix-ui/react-dialog";
import type { MouseEvent, ReactNode, RefObject } from "react";

/** What every dialog opened by useOnDemandDialog's button receives (on-demand.ts). */
export interface OnDemandDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  returnFocusTo: RefObject<HTMLButtonElement | null>;
}

/**
 * The Radix dialog of a button whose code arrives on first use: controlled, with an overlay, and
 * focus handed back to that button on close (there is no Radix trigger to return it to). The
 * header's palette and menu panel and ActionDialog are drawn in it; each gives its own box.
 */
export function OnDemandDialog({ open, onOpenChange, returnFocusTo, className, onClick, children }: OnDemandDialogProps & { className: string; onClick?: (e: MouseEvent<HTMLDivElement>) => void; children: ReactNode }) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-slate-900/40" />
        <Dialog.Content
          className={className}
          onClick={onClick}
          onCloseAutoFocus={(e) => {
            e.preventDefault();
            returnFocusTo.current?.focus();
          }}
        >
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
