import { notFound, redirect } from "next/navigation";
import { ActionForm } from "@/components/action-form";
import { AuditLog } from "@/components/audit-log";
import { PageHeader } from "@/components/ui";
import { describeCheckpointSetup } from "@/lib/audit/checkpoint-setup";
import { auditFilterFromSearchParams } from "@/lib/audit/filter-params";
import { listAuditEvents } from "@/lib/audit/queries";
import { currentContext } from "@/lib/auth/current-actor";
import { can } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { verifyAuditChainAction, writeAuditCheckpointAction } from "./actions";

export const metadata = { title: "Audit log" };
const PAGE = 100;

export default async function PlatformAuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  if (!can(ctx.actor, "audit.view_all", { kind: "platform" }, ctx.now)) notFound();
  const { filter, raw } = auditFilterFromSearchParams(await searchParams, { limit: PAGE });
  // An unknown tenant slug in the filter simply matches nothing.
  const { events } = await listAuditEvents(ctx, filter).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "not_found") return { events: [] };
    throw error;
  });
  const checkpoints = config().auditCheckpoints;
  return (
    <>
      <PageHeader
        crumbs={[{ href: "/admin", label: "Admin" }]}
        title="Audit log"
        subtitle={`Every change on the platform, newest first. Entries are hash-chained: verifying re-hashes the whole log and checks its end against the newest signed checkpoint. ${describeCheckpointSetup(checkpoints)}`}
        actions={
          <div className="flex flex-wrap items-start gap-2">
            {checkpoints.signing && <ActionForm action={writeAuditCheckpointAction} fields={[]} submitLabel="Write checkpoint" pendingLabel="Signing…" />}
            <ActionForm action={verifyAuditChainAction} fields={[]} submitLabel="Verify chain" pendingLabel="Verifying…" />
          </div>
        }
      />
      <AuditLog basePath="/admin/audit" exportPath="/admin/audit/export" filter={raw} events={events} showTenant pageSize={PAGE} />
    </>
  );
}
