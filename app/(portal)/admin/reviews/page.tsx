import { notFound, redirect } from "next/navigation";
import { ActionDialog } from "@/components/action-dialog";
import { openReviewFields, ReviewList } from "@/components/review-list";
import { Card, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { dateInputValue } from "@/lib/format";
import { MAX_REVIEW_DAYS } from "@/lib/reviews/commands";
import { platformReviewList } from "@/lib/reviews/queries";
import { openPlatformReviewAction } from "../../reviews/actions";

export const metadata = { title: "Access reviews" };
const DAY = 86_400_000;

export default async function AdminReviewsPage() {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const lists = await platformReviewList(ctx);
  if (!lists) notFound();
  return (
    <>
      <PageHeader
        crumbs={[{ href: "/admin", label: "Admin" }]}
        title="Access reviews"
        subtitle="Reviews of the platform's own access, and every tenant's reviews. A tenant's review is opened from its Access reviews tab."
        actions={
          <ActionDialog
            triggerLabel="Open a platform review"
            title="Open a review of the platform's access"
            description="Every platform admin recorded in the portal and every platform-scoped service account with its tokens is listed for the platform admins. Admins named in ALLOT_PLATFORM_ADMINS are configuration and are not listed."
            submitLabel="Open review"
            action={openPlatformReviewAction}
            fields={openReviewFields(dateInputValue(new Date(ctx.now.getTime() + 14 * DAY)), dateInputValue(new Date(ctx.now.getTime() + MAX_REVIEW_DAYS * DAY)))}
          />
        }
      />
      <div className="space-y-6">
        <Card title="Platform reviews">
          <ReviewList reviews={lists.platform} now={ctx.now} showTenant={false} empty="Open one to have the platform admins and platform service accounts confirmed or removed." />
        </Card>
        <Card title="Tenant reviews">
          <ReviewList reviews={lists.tenants} now={ctx.now} showTenant empty="Tenant admins open these from their tenant's Access reviews tab." />
        </Card>
      </div>
    </>
  );
}
