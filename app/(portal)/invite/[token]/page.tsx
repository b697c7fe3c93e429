import { redirect } from "next/navigation";
import { ActionForm } from "@/components/action-form";
import { Card, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { describeInvitation } from "@/lib/tenancy/commands/accept-invitation";
import { acceptInvitationAction } from "./actions";
import { Time } from "@/components/time";

export const metadata = { title: "Invitation" };

const ROLE = { tenant_admin: "tenant admin", member: "member", viewer: "viewer" } as const;

export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const ctx = await currentContext();
  const { token } = await params;
  if (!ctx) redirect(`/sign-in?callbackUrl=${encodeURIComponent(`/invite/${token}`)}`);
  const { problem, invitation } = await describeInvitation(ctx, token);

  return (
    <>
      <PageHeader title="Invitation" />
      <Card>
        {!invitation ? (
          <p role="alert" className="text-sm text-slate-700">
            {problem}
          </p>
        ) : (
          <div className="space-y-4 text-sm text-slate-700">
            <p>
              {invitation.projectName ? (
                <>
                  You are invited to the project <strong>{invitation.projectName}</strong> of {invitation.tenantName} as an external collaborator ({invitation.projectRole}),
                  until {invitation.grantExpiresAt ? <Time at={invitation.grantExpiresAt} day /> : "—"}.
                </>
              ) : (
                <>
                  You are invited to join <strong>{invitation.tenantName}</strong> as {ROLE[invitation.tenantRole ?? "member"]}.
                </>
              )}
            </p>
            <ActionForm action={acceptInvitationAction} fields={[{ kind: "hidden", name: "token", value: token }]} submitLabel="Accept invitation" pendingLabel="Accepting…" />
          </div>
        )}
      </Card>
    </>
  );
}
