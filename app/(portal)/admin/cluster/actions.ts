"use server";

import { revalidatePath } from "next/cache";
import { formAction } from "@/lib/auth/form-action";
import { checkDriftNow, reconcileEverything, reconcileTarget, retryClusterChange } from "@/lib/cluster/commands";
import { wakeWorker } from "@/lib/jobs/in-process";

const refresh = () => revalidatePath("/", "layout");

/** After queueing work: let the in-process worker run now rather than at its next poll, and show the new state. */
const queued = (message: string) => {
  wakeWorker();
  refresh();
  return { message };
};

export const retryClusterChangeAction = formAction(retryClusterChange, (r) =>
  r.retried ? queued("Queued again.") : queued(`A newer change (#${r.supersededBy}) already waits and will apply the current state; this one is marked superseded.`),
);

export const reconcileTargetAction = formAction(reconcileTarget, () => queued("Reconcile queued."));

export const reconcileEverythingAction = formAction(reconcileEverything, (r) =>
  queued(`Queued a reconcile of ${r.tenants} tenant${r.tenants === 1 ? "" : "s"} and all their projects.`),
);

export const checkDriftNowAction = formAction(checkDriftNow, (r) => {
  refresh();
  return { message: `Checked ${r.checked} object${r.checked === 1 ? "" : "s"}: ${r.drifted} drifted, ${r.missing} missing.` };
});
