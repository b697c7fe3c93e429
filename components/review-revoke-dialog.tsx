"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { buttonClass } from "./button-class";
import { OnDemandDialog, type OnDemandDialogProps } from "./on-demand-dialog";
import { Hidden, Submit } from "./review-group";

/** The confirmation of a revoke on the access review page (review-group.tsx), loaded when first reached for. */
export function ReviewRevokeDialog({ action, reviewId, ids, what, ...dialog }: OnDemandDialogProps & { action: (data: FormData) => void; reviewId: string; ids: string[]; what: string }) {
  return (
    <OnDemandDialog {...dialog} className="fixed left-1/2 top-1/2 z-50 w-[min(30rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 rounded-lg bg-white p-6 shadow-xl">
      <Dialog.Title className="text-lg font-semibold text-slate-900">Revoke {what}?</Dialog.Title>
      <Dialog.Description className="mt-1 text-sm text-slate-600">
        The access ends now: a membership is removed with its project grants, a grant or a collaborator&apos;s access is removed, a service account&apos;s live tokens are revoked. The decision is recorded with your name.
      </Dialog.Description>
      <form
        action={(data) => {
          dialog.onOpenChange(false);
          action(data);
        }}
        className="mt-4 flex justify-end gap-2"
      >
        <Hidden reviewId={reviewId} ids={ids} decision="revoke" />
        <Dialog.Close className={buttonClass()}>Cancel</Dialog.Close>
        <Submit label="Revoke access" danger />
      </form>
    </OnDemandDialog>
  );
}
