import "server-only";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "@/db/client";
import { accessExtensionRequests, principals, projectGrants, projects, tenants } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record";
import { defineCommand } from "@/lib/auth/command";
import { auditActorOf, type CommandContext } from "@/lib/auth/context";
import { enqueueProjectChange } from "@/lib/cluster/outbox";
import { config } from "@/lib/config";
import { AppError, isUniqueViolation } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { notify, tenantAdminIds } from "@/lib/notify/in-app";
import { enqueueWebhookEvent } from "@/lib/notify/webhooks";
import { extensionRequestPath, tenantCollaboratorsPath } from "@/lib/reminders/places";
import { instantInput } from "@/lib/input/instants";
import { uuidInput } from "../inputs";
import { collaboratorExpiryProblem } from "../invitation-rules";
import { assertProjectOpen, assertTenantActive, projectBySlugs } from "../lookup";
import { onProject, projectAddress } from "../targets";
import { DATE_EXAMPLE, FILL_IN, atMostChars } from "@/lib/input/messages";

/**
 * Extensions of a time-bound project grant (an external collaborator's, or a
 * member's): the holder asks from the reminder for a later end and says why;
 * the sponsor or a tenant admin grants it in one step, within the maximum term
 * (collaboratorExpiryProblem, the rule that invitations follow), or declines
 * it. One pending request per grant. Every step is audited and told to the
 * other side in the portal and as the webhook event "access.extension".
 */

const untilInput = instantInput(DATE_EXAMPLE);
const reasonInput = z
  .string({ message: FILL_IN })
  .trim()
  .min(10, "Say why, in at least 10 characters.")
  .max(1000, atMostChars(1000));
const noteInput = z.preprocess((v) => (v === null ? undefined : v), z.string().trim().max(1000, atMostChars(1000)).default(""));

function checkTerm(now: Date, until: Date) {
  const problem = collaboratorExpiryProblem(until, now, config().maxCollaboratorDays);
  if (problem) throw new AppError("validation", undefined, { until: [problem] });
}

export const requestExtension = defineCommand({
  name: "requestExtension",
  input: projectAddress.extend({ until: untilInput, reason: reasonInput }),
  target: onProject("project.extension.request"),
  async run(ctx, input, { tenantId, projectId }) {
    try {
      return await ctx.db.transaction(async (tx) => {
        const { tenant, project } = await projectBySlugs(tx, input.tenant, input.project);
        assertTenantActive(tenant);
        assertProjectOpen(project);
        // The actor's own grant: whose access is extended is never taken from the input.
        const [grant] = await tx
          .select()
          .from(projectGrants)
          .where(and(eq(projectGrants.projectId, projectId), eq(projectGrants.principalId, ctx.actor.principalId)))
          .for("update");
        if (!grant) throw new AppError("not_found", "You hold no grant on this project.");
        if (grant.expiresAt === null) throw new AppError("conflict", "Your access to this project does not expire; there is nothing to extend.");
        if (input.until.getTime() <= grant.expiresAt.getTime()) {
          throw new AppError("validation", undefined, { until: [`Enter a date after your access ends (${formatDateTime(grant.expiresAt)}).`] });
        }
        checkTerm(ctx.now, input.until);
        const [pending] = await tx
          .select({ id: accessExtensionRequests.id })
          .from(accessExtensionRequests)
          .where(and(eq(accessExtensionRequests.grantId, grant.id), eq(accessExtensionRequests.status, "pending")));
        if (pending) throw new AppError("conflict", "You already asked for an extension of this access; wait for the answer.");
        const [row] = await tx
          .insert(accessExtensionRequests)
          .values({ tenantId, projectId, grantId: grant.id, requestedBy: ctx.actor.principalId, currentExpiresAt: grant.expiresAt, requestedUntil: input.until, reason: input.reason, createdAt: ctx.now })
          .returning();
        await recordAudit(tx, {
          actor: auditActorOf(ctx.actor),
          at: ctx.now,
          tenantId,
          action: "project_grant.extension_requested",
          target: { type: "project_grant", id: grant.id },
          after: { requestId: row!.id, currentExpiresAt: grant.expiresAt, requestedUntil: input.until, reason: input.reason },
        });
        const who = ctx.actor.email ?? ctx.actor.displayName;
        const text = `${who} asks to keep access to ${project.name} until ${formatDateTime(input.until)} (now ends ${formatDateTime(grant.expiresAt)}): ${input.reason}`;
        await notify(
          tx,
          [grant.grantedBy, ...(await tenantAdminIds(tx, tenantId))].filter((id) => id !== ctx.actor.principalId),
          { kind: "access.extension_requested", title: `${ctx.actor.displayName} asks for more time on ${project.name}`, body: text, link: tenantCollaboratorsPath(tenant.slug) },
          ctx.now,
        );
        await enqueueWebhookEvent(
          tx,
          "access.extension",
          { text, action: "requested", requestId: row!.id, tenant: tenant.slug, project: project.slug, principal: who, expiresAt: grant.expiresAt.toISOString(), requestedUntil: input.until.toISOString(), link: tenantCollaboratorsPath(tenant.slug) },
          ctx.now,
        );
        return { requestId: row!.id, requestedUntil: input.until };
      });
    } catch (error) {
      // Two requests at once: the partial unique index lets one through.
      if (isUniqueViolation(error)) throw new AppError("conflict", "You already asked for an extension of this access; wait for the answer.");
      throw error;
    }
  },
});

/** The request acted on decides the tenant and project the policy sees, never the input. */
function onRequest(action: "project.extension.decide") {
  return async (ctx: CommandContext, input: { requestId: string }) => {
    const [row] = await ctx.db
      .select({ tenantId: accessExtensionRequests.tenantId, projectId: accessExtensionRequests.projectId })
      .from(accessExtensionRequests)
      .where(eq(accessExtensionRequests.id, input.requestId));
    if (!row) throw new AppError("not_found", "No such extension request.");
    return { action, resource: { kind: "project" as const, tenantId: row.tenantId, projectId: row.projectId } };
  };
}

async function pendingRequest(tx: Database, requestId: string) {
  const [row] = await tx
    .select({ request: accessExtensionRequests, tenantSlug: tenants.slug, tenantStatus: tenants.status, project: projects, requesterName: principals.displayName })
    .from(accessExtensionRequests)
    .innerJoin(tenants, eq(tenants.id, accessExtensionRequests.tenantId))
    .innerJoin(projects, eq(projects.id, accessExtensionRequests.projectId))
    .innerJoin(principals, eq(principals.id, accessExtensionRequests.requestedBy))
    .where(eq(accessExtensionRequests.id, requestId))
    .for("update", { of: accessExtensionRequests });
  if (!row) throw new AppError("not_found", "No such extension request.");
  if (row.request.status !== "pending") throw new AppError("conflict", `This request was already ${row.request.status}.`);
  assertTenantActive({ status: row.tenantStatus });
  assertProjectOpen(row.project);
  return row;
}

type PendingRequest = Awaited<ReturnType<typeof pendingRequest>>;
type Decision = { status: "granted"; until: Date; previousExpiresAt: Date | null } | { status: "declined" };

/**
 * The one way a request is decided: its status, the audit event, the notice
 * to the requester and the webhook event, in the caller's transaction (after
 * a grant has moved the access's end).
 */
async function recordDecision(tx: Database, ctx: CommandContext, tenantId: string, pending: PendingRequest, note: string, decision: Decision) {
  const { request, tenantSlug, project, requesterName } = pending;
  await tx
    .update(accessExtensionRequests)
    .set({ status: decision.status, decidedBy: ctx.actor.principalId, decidedAt: ctx.now, decisionNote: note || null })
    .where(eq(accessExtensionRequests.id, request.id));
  const granted = decision.status === "granted";
  await recordAudit(tx, {
    actor: auditActorOf(ctx.actor),
    at: ctx.now,
    tenantId,
    action: granted ? "project_grant.extension_granted" : "project_grant.extension_declined",
    target: { type: "project_grant", id: request.grantId },
    ...(granted
      ? { before: { expiresAt: decision.previousExpiresAt }, after: { expiresAt: decision.until, requestId: request.id, requestedUntil: request.requestedUntil, note } }
      : { after: { requestId: request.id, requestedUntil: request.requestedUntil, note } }),
  });
  const link = extensionRequestPath(tenantSlug, project.slug);
  const ending = note ? `: ${note}` : ".";
  await notify(
    tx,
    [request.requestedBy],
    granted
      ? { kind: "access.extension_granted", title: `Your access to ${project.name} is extended until ${formatDateTime(decision.until)}`, body: note, link }
      : { kind: "access.extension_declined", title: `Your request for more time on ${project.name} was declined`, body: note || `Your access still ends at ${formatDateTime(request.currentExpiresAt)}.`, link },
    ctx.now,
  );
  const event = { requestId: request.id, tenant: tenantSlug, project: project.slug, link: tenantCollaboratorsPath(tenantSlug) };
  await enqueueWebhookEvent(
    tx,
    "access.extension",
    granted
      ? { text: `${requesterName}'s access to ${project.name} is extended until ${formatDateTime(decision.until)}${ending}`, action: "granted", ...event, expiresAt: decision.until.toISOString(), previousExpiresAt: decision.previousExpiresAt?.toISOString() ?? null }
      : { text: `${requesterName}'s request for more time on ${project.name} was declined${ending}`, action: "declined", ...event },
    ctx.now,
  );
}

/** Grant a pending request: the grant's end moves to the date asked for, or to an earlier one the decider gives. */
export const grantExtension = defineCommand({
  name: "grantExtension",
  input: z.object({
    requestId: uuidInput,
    until: z.preprocess((v) => (v === "" || v === null ? undefined : v), untilInput.optional()),
    note: noteInput,
  }),
  target: onRequest("project.extension.decide"),
  async run(ctx, input, { tenantId, projectId }) {
    return ctx.db.transaction(async (tx) => {
      const pending = await pendingRequest(tx, input.requestId);
      const { request } = pending;
      const until = input.until ?? request.requestedUntil;
      if (until.getTime() > request.requestedUntil.getTime()) throw new AppError("validation", undefined, { until: ["Enter a date no later than the one asked for."] });
      checkTerm(ctx.now, until);
      const [grant] = await tx.select().from(projectGrants).where(eq(projectGrants.id, request.grantId)).for("update");
      if (!grant) throw new AppError("not_found", "This access was revoked meanwhile.");
      if (grant.expiresAt !== null && until.getTime() <= grant.expiresAt.getTime()) {
        throw new AppError("validation", undefined, { until: [`Enter a date after the access's present end (${formatDateTime(grant.expiresAt)}).`] });
      }
      const [updated] = await tx.update(projectGrants).set({ expiresAt: until, version: grant.version + 1 }).where(eq(projectGrants.id, grant.id)).returning();
      await recordDecision(tx, ctx, tenantId, pending, input.note, { status: "granted", until, previousExpiresAt: grant.expiresAt });
      // The grant's RoleBinding follows its new end on the cluster, as when an admin changes an expiry.
      await enqueueProjectChange(tx, { tenantId, projectId, reason: "collaborator extension granted", at: ctx.now });
      return { grantId: grant.id, expiresAt: updated!.expiresAt };
    });
  },
});

export const declineExtension = defineCommand({
  name: "declineExtension",
  input: z.object({ requestId: uuidInput, note: noteInput }),
  target: onRequest("project.extension.decide"),
  async run(ctx, input, { tenantId }) {
    return ctx.db.transaction(async (tx) => {
      const pending = await pendingRequest(tx, input.requestId);
      await recordDecision(tx, ctx, tenantId, pending, input.note, { status: "declined" });
      return { requestId: pending.request.id };
    });
  },
});
