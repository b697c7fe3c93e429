import { notFound, redirect } from "next/navigation";
import { ActionDialog } from "@/components/action-dialog";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { listWebhooks } from "@/lib/notify/webhook-commands";
import { WEBHOOK_EVENTS } from "@/lib/notify/webhooks";
import { createWebhookAction, deleteWebhookAction } from "./actions";
import { Time } from "@/components/time";

export const metadata = { title: "Webhooks" };
export const dynamic = "force-dynamic";

/** Outgoing webhooks on quota request events: Slack-compatible JSON, HMAC-signed, retried with backoff. */
export default async function WebhooksPage() {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const hooks = await listWebhooks(ctx);
  if (!hooks) notFound();
  return (
    <>
      <PageHeader
        title="Webhooks"
        subtitle={`Posts Slack-compatible JSON ({"text": …} plus details) on ${WEBHOOK_EVENTS.join(", ")}, signed with HMAC-SHA256, retried up to 6 times with backoff.`}
        actions={
          <ActionDialog
            triggerLabel="New webhook"
            title="New webhook"
            description="A Slack incoming-webhook URL works as is."
            submitLabel="Create webhook"
            action={createWebhookAction}
            fields={[
              { kind: "text", name: "url", label: "URL", placeholder: "https://hooks.slack.com/services/…", required: true },
              { kind: "text", name: "events", label: "Events", defaultValue: WEBHOOK_EVENTS.join(", "), hint: `Comma-separated: ${WEBHOOK_EVENTS.join(", ")}` },
            ]}
          />
        }
      />
      <Card title="Webhooks">
        {hooks.length === 0 ? (
          <EmptyState title="No webhooks">Add one to tell a chat channel or an automation when requests are created, decided, applied or fail, when a project reaches its budget or is forecast to exceed it, and when a project leaves its GPUs idle.</EmptyState>
        ) : (
          <DataTable caption="Webhooks" columns={["URL", "Events", "Deliveries", "Last", ""]}>
            {hooks.map((h) => (
              <tr key={h.id}>
                <Cell className="max-w-xs truncate font-mono text-xs">{h.url}</Cell>
                <Cell className="text-xs">{h.events.join(", ")}</Cell>
                <Cell className="space-x-1">
                  <Badge tone="green">{h.counts.delivered ?? 0} delivered</Badge>
                  {(h.counts.pending ?? 0) > 0 && <Badge tone="amber">{h.counts.pending} pending</Badge>}
                  {(h.counts.failed ?? 0) > 0 && <Badge tone="red">{h.counts.failed} failed</Badge>}
                </Cell>
                <Cell className="text-xs">
                  {h.recent[0] ? (
                    <>
                      {h.recent[0].event} · <Time at={h.recent[0].createdAt} day />
                      {h.recent[0].lastError && <p className="text-red-700">{h.recent[0].lastError}</p>}
                    </>
                  ) : (
                    "none yet"
                  )}
                </Cell>
                <Cell className="text-right">
                  <ActionDialog triggerLabel="Delete" triggerKind="link" danger title="Delete this webhook?" description="Pending deliveries are dropped." submitLabel="Delete" action={deleteWebhookAction} fields={[{ kind: "hidden", name: "webhookId", value: h.id }]} />
                </Cell>
              </tr>
            ))}
          </DataTable>
        )}
      </Card>
    </>
  );
}
