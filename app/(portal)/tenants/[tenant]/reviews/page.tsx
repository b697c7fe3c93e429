import { notFound, redirect } from "next/navigation";
import { ActionDialog } from "@/components/action-dialog";
import { openReviewFields, ReviewList } from "@/components/review-list";
import { Card } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { dateInputValue } from "@/lib/format";
import { MAX_REVIEW_DAYS } from "@/lib/reviews/commands";
import { tenantReviews } from "@/lib/reviews/queries";
import { tenantAccess } from "@/lib/tenancy/queries";
import { openTenantReviewAction } from "../../../reviews/actions";
import { TenantHeader } from "../tenant-header";

export const metadata = { title: "Access reviews" };
const DAY = 86_400_000;

export default async function TenantReviewsPage({ params }: { params: Promise<{ tenant: string }> }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const slug = (await params).tenant;
  const [detail, reviews] = await Promise.all([tenantAccess(ctx, slug), tenantReviews(ctx, slug)]);
  if (!detail || !reviews) notFound();
  return (
    <>
      <TenantHeader detail={detail} />
      <Card
        title="Access reviews"
        description={
          reviews.canManage
            ? "A review lists every membership, project grant, external collaborator and service account with its tokens, as they are when it opens. Tenant admins decide each; a collaborator is reviewed by their sponsor."
            : "Reviews with items assigned to you: the collaborators you sponsor."
        }
        actions={
          reviews.canManage && (
            <ActionDialog
              triggerLabel="Open a review"
              title={`Open an access review of ${detail.tenant.name}`}
              description="Every access of the tenant is listed now for its reviewer, who keeps or revokes it. What nobody decided by the deadline follows the rule you choose."
              submitLabel="Open review"
              action={openTenantReviewAction}
              fields={[
                { kind: "hidden", name: "tenant", value: detail.tenant.slug },
                ...openReviewFields(dateInputValue(new Date(ctx.now.getTime() + 14 * DAY)), dateInputValue(new Date(ctx.now.getTime() + MAX_REVIEW_DAYS * DAY))),
              ]}
            />
          )
        }
      >
        <ReviewList reviews={reviews.reviews} now={ctx.now} showTenant={false} empty="Open one to have every access of the tenant confirmed or removed by a deadline." />
      </Card>
    </>
  );
}
