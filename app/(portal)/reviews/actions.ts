"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formAction } from "@/lib/auth/form-action";
import { closeReviewNow } from "@/lib/reviews/close";
import { decideReviewItems, openPlatformReview, openTenantReview, reviewPath } from "@/lib/reviews/commands";

/** Server actions of access reviews: each one is a command behind the shared wrapper. */

const refresh = () => revalidatePath("/", "layout");

const toReview = (result: { reviewId: string }) => {
  refresh();
  redirect(reviewPath(result.reviewId));
};

export const openTenantReviewAction = formAction(openTenantReview, toReview);
export const openPlatformReviewAction = formAction(openPlatformReview, toReview);
export const decideReviewItemsAction = formAction(decideReviewItems, (result) => {
  refresh();
  const verb = result.decision === "keep" ? "Kept" : "Revoked";
  return { message: `${verb} ${result.decided} item${result.decided === 1 ? "" : "s"}.` };
});
export const closeReviewNowAction = formAction(closeReviewNow, (result) => {
  refresh();
  return { message: `Closed: the rule decided ${result.undecided} item${result.undecided === 1 ? "" : "s"} nobody had decided (${result.revoked} revoked, ${result.kept} kept and flagged).` };
});
