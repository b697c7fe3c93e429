"use client";

import Link from "next/link";
import type { FormState } from "@/lib/form-state";
import type { ExtendOfferProps } from "@/lib/quota/extension-offers";
import { useOnDemandDialog } from "../on-demand";

export type ExtendAction = (state: FormState, formData: FormData) => Promise<FormState>;
/** What the page hands over: extendOfferProps (lib/quota/extension-offers.ts). */
export type ExtendOffer = ExtendOfferProps;

const loadDialog = () => import("./extend-grant-dialog").then((m) => m.ExtendGrantDialog);

/**
 * "Extend" beside a time-bound grant: asks for a new end and a reason, and
 * shows as the date changes what the added days cost at the grant's monthly
 * rate (the approver sees the same figure). When an extension already waits,
 * a link to it instead. The page decides whether to offer it
 * (lib/quota/extension-offers.ts); the command decides again. The dialog's
 * code (Radix) arrives on first intent, so project pages do not load it up
 * front (first-load budget, test/build-output).
 */
export function ExtendGrant({
  action,
  tenant,
  project,
  offer,
  currency,
  requestHref,
}: {
  action: ExtendAction;
  tenant: string;
  project: string;
  offer: ExtendOffer;
  currency: string;
  /** Where a request of this project lives, by id. */
  requestHref: string;
}) {
  const { Dialog, buttonProps, dialogProps } = useOnDemandDialog(loadDialog);
  if (offer.pendingRequestId) {
    return (
      <Link href={`${requestHref}/${offer.pendingRequestId}`} className="text-sm font-medium text-brand-700 underline hover:no-underline" data-testid="extension-waiting">
        Extension waiting
      </Link>
    );
  }
  const what = offer.label;
  return (
    <>
      <button {...buttonProps} className="text-sm font-medium text-brand-700 hover:underline" data-testid="extend-grant">
        Extend<span className="sr-only"> {what}</span>
      </button>
      {Dialog && <Dialog {...dialogProps} what={what} action={action} tenant={tenant} project={project} offer={offer} currency={currency} />}
    </>
  );
}
