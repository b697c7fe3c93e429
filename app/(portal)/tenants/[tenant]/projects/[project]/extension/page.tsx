import { notFound, redirect } from "next/navigation";
import { ActionForm } from "@/components/action-form";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { dateInputValue } from "@/lib/format";
import { timeLeftWords } from "@/lib/reminders/thresholds";
import { ownExtensionState } from "@/lib/tenancy/extension-queries";
import { requestExtensionAction } from "./actions";
import { Time } from "@/components/time";

type Params = Promise<{ tenant: string; project: string }>;
const DAY = 86_400_000;

export const metadata = { title: "Ask for more time" };

const STATUS_TONE = { pending: "amber", granted: "green", declined: "red" } as const;

/** Where an expiry reminder leads the person whose access ends: the date they need and why. */
export default async function ExtensionPage({ params }: { params: Params }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const { tenant, project } = await params;
  const state = await ownExtensionState(ctx, tenant, project);
  if (!state) notFound();
  const { grant, requests, maxDays, latest } = state;
  const pending = requests.find((r) => r.status === "pending");
  const projectHref = `/tenants/${state.tenant.slug}/projects/${state.project.slug}`;

  return (
    <>
      <PageHeader
        crumbs={[
          { href: "/", label: "My tenants" },
          { href: projectHref, label: state.project.name },
        ]}
        title="Ask for more time"
        subtitle={
          grant.expiresAt ? (
            <>
              Your access to <strong>{state.project.name}</strong> ({state.tenant.name}) ends <strong>{timeLeftWords(grant.expiresAt, ctx.now)}</strong>, at <Time at={grant.expiresAt} />.
              {grant.sponsor && <> Your sponsor is {grant.sponsor}.</>}
            </>
          ) : (
            <>Your access to {state.project.name} does not expire.</>
          )
        }
      />
      {grant.expiresAt === null ? (
        <Card>
          <EmptyState title="Nothing to extend">Your access to this project has no end date.</EmptyState>
        </Card>
      ) : pending ? (
        <Card title="Your request is waiting" description="Your sponsor or a tenant admin grants or declines it; you are told in the portal either way.">
          <p className="text-sm text-slate-700" data-testid="pending-request">
            Until <strong><Time at={pending.requestedUntil} /></strong>, asked <Time at={pending.createdAt} />: “{pending.reason}”
          </p>
        </Card>
      ) : (
        <Card title="Request an extension" description={
            <>
              Choose the day your access should end (it ends at the start of that day, UTC) and say why. At most {maxDays} days from today, by <Time at={latest} />.
            </>
          }>
          <ActionForm
            action={requestExtensionAction}
            submitLabel="Ask for an extension"
            pendingLabel="Asking…"
            className="max-w-md"
            fields={[
              { kind: "hidden", name: "tenant", value: state.tenant.slug },
              { kind: "hidden", name: "project", value: state.project.slug },
              {
                kind: "date",
                name: "until",
                label: "Keep access until",
                min: dateInputValue(new Date(grant.expiresAt.getTime() + DAY)),
                max: dateInputValue(latest),
                defaultValue: dateInputValue(new Date(Math.min(grant.expiresAt.getTime() + 30 * DAY, latest.getTime()))),
              },
              { kind: "textarea", name: "reason", label: "Why you need it", placeholder: "e.g. the evaluation runs until the end of the quarter" },
            ]}
          />
        </Card>
      )}
      {requests.length > 0 && (
        <div className="mt-6">
          <Card title="Your requests">
            <DataTable caption="Your extension requests" columns={["Asked", "Until", "Reason", "Answer"]}>
              {requests.map((r) => (
                <tr key={r.id}>
                  <Cell className="whitespace-nowrap"><Time at={r.createdAt} /></Cell>
                  <Cell className="whitespace-nowrap"><Time at={r.requestedUntil} /></Cell>
                  <Cell>{r.reason}</Cell>
                  <Cell>
                    <Badge tone={STATUS_TONE[r.status]}>{r.status}</Badge>
                    {r.decisionNote && <p className="mt-1 text-xs text-slate-600">{r.decisionNote}</p>}
                  </Cell>
                </tr>
              ))}
            </DataTable>
          </Card>
        </div>
      )}
    </>
  );
}
