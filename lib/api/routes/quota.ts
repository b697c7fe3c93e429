import "server-only";
import { z } from "zod";
import { executeCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { fitNote } from "@/lib/quota/capacity";
import { commentOnQuotaRequest } from "@/lib/quota/commands/request-comments";
import { requestQuotaExtension } from "@/lib/quota/commands/extensions";
import { editQuotaRequest } from "@/lib/quota/commands/request-edits";
import { approveQuotaRequest, cancelQuotaRequest, createQuotaRequest, rejectQuotaRequest } from "@/lib/quota/commands/requests";
import { cursorInput } from "@/lib/input/cursor";
import { wholeNumber } from "@/lib/input/numbers";
import { projectQuota, projectRequests, REQUEST_LIST_LIMIT, requestDetail, visibleRequests, type RequestDetail, type RequestListItem } from "@/lib/quota/queries";
import { projectParams } from "../params";
import { apiRoute, commandInput } from "../route";
import { costEstimateOut, effectiveQuotaOut, quotaGrantOut, quotaRequestCommentOut, quotaRequestDetailOut, quotaRequestOut, quotaRequestStatusOut } from "../schemas";

/**
 * Quota requests over REST: a project's members ask, platform admins decide
 * (approve, approve with changes, reject; optimistic concurrency through the
 * request's version), the requester may cancel while it is pending. A request
 * the caller cannot see is a 404, whatever the caller may otherwise do.
 */

const TAG = "Quota requests";
const requestParams = z.object({ id: z.string().max(64) });
const statusQuery = z.object({ status: quotaRequestStatusOut.optional() });
/** Ids as requestDetail accepts them; anything else names nothing. */
const REQUEST_ID = /^[0-9a-f-]{36}$/;

const withCurrency = (item: RequestListItem) => ({ ...item, currency: config().currency });

/** The one shape of a request with its timeline; the decision picture only for those who may decide. */
function detailOut(ctx: CommandContext, detail: RequestDetail) {
  const currency = config().currency;
  const decider = can(ctx.actor, "quota.decide", { kind: "platform" }, ctx.now);
  const picture = detail.picture;
  return {
    ...withCurrency(detail.request),
    granted: detail.request.granted,
    timeline: detail.events.map((e) => ({
      at: e.at,
      actor: e.actorLabel,
      kind: e.kind,
      // Cluster errors behind "apply failed" are for platform admins.
      detail: e.detail && !decider ? Object.fromEntries(Object.entries(e.detail).filter(([k]) => k !== "error")) : e.detail,
    })),
    canCancel: detail.canCancel,
    canDecide: detail.canDecide,
    revisions: detail.conversation.revisions,
    comments: detail.conversation.comments,
    canEdit: detail.conversation.canEdit,
    canComment: detail.conversation.canComment,
    history: detail.history,
    decision: picture
      ? {
          conflict: picture.conflict,
          secondApprovalRequired: picture.assessment.secondApproval,
          estimate: { ...picture.assessment.estimate, currency },
          quotaNow: picture.assessment.current.quota,
          quotaAfter: picture.assessment.after.quota,
          capacity: picture.assessment.capacity.map((l) => ({ ...l, note: fitNote(l) })),
          tenantShares: picture.assessment.shares,
          cohort: picture.assessment.cohort,
          diff: picture.diff,
          extension: picture.extensionPicture
            ? { monthly: picture.extensionPicture.monthly, addedCost: picture.extensionPicture.added?.cost ?? null, addedHours: picture.extensionPicture.added?.hours ?? null, grantEndsAt: picture.extensionPicture.grantEndsAt }
            : null,
        }
      : null,
  };
}

async function detailOrNotFound(ctx: CommandContext, id: string) {
  const detail = await requestDetail(ctx, id);
  if (!detail) throw new AppError("not_found");
  return detailOut(ctx, detail);
}

/**
 * A path id that cannot name a request is not found (not a validation error).
 * Whether the caller may see the request is the commands' decision: their
 * targets answer not_found for a request out of the caller's reach.
 */
function assertRequestId(id: string) {
  if (!REQUEST_ID.test(id)) throw new AppError("not_found");
}

export const createQuotaRequestRoute = apiRoute({
  method: "POST",
  path: "/api/v1/tenants/{tenant}/projects/{project}/quota-requests",
  summary: "Ask for more quota on a project (members and tenant admins); amounts take Kubernetes notation (500m, 64Gi) or plain numbers (cores, GiB)",
  description: "Small requests may be approved at once by the platform's rules: `autoApproved` says so, and `autoApproval` gives the rule or why not.",
  tag: TAG,
  params: projectParams,
  body: createQuotaRequest.input,
  bodyFromPath: ["tenant", "project"],
  response: z.object({
    request: quotaRequestDetailOut,
    autoApproved: z.boolean(),
    autoApproval: z.object({ rule: z.string().nullable(), reason: z.string().nullable() }),
    estimate: costEstimateOut,
  }),
  status: 201,
  async handler(ctx, { params, body }) {
    const created = await executeCommand(createQuotaRequest, ctx, commandInput(body, params));
    const auto = created.assessment.auto;
    return {
      request: await detailOrNotFound(ctx, created.request.id),
      autoApproved: created.autoApproved,
      autoApproval: auto.auto ? { rule: auto.rule, reason: null } : { rule: null, reason: auto.reason },
      estimate: { ...created.assessment.estimate, currency: config().currency },
    };
  },
});

export const listProjectQuotaRequests = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/projects/{project}/quota-requests",
  summary: "The project's quota requests, newest first (?status= to filter)",
  tag: TAG,
  params: projectParams,
  query: statusQuery,
  response: z.object({ requests: z.array(quotaRequestOut) }),
  async handler(ctx, { params, query }) {
    const items = await projectRequests(ctx, params.tenant, params.project, query.status);
    if (!items) throw new AppError("not_found");
    return { requests: items.map(withCurrency) };
  },
});

export const listQuotaRequests = apiRoute({
  method: "GET",
  path: "/api/v1/quota-requests",
  summary: "Quota requests the caller can see, newest first: every tenant's for platform admins (?status=pending for the queue)",
  tag: TAG,
  params: z.object({}),
  query: statusQuery.extend({
    after: cursorInput,
    limit: wholeNumber("How many requests a page holds (1000 when not given)", { min: 1, max: REQUEST_LIST_LIMIT, empty: REQUEST_LIST_LIMIT }),
  }),
  response: z.object({
    requests: z.array(quotaRequestOut),
    next: z.string().optional().describe("Pass as ?after= for the next page (newest first, keyset on created_at and id); absent on the last page"),
  }),
  handler: async (ctx, { query }) => {
    const { requests, next } = await visibleRequests(ctx, query.status, { after: query.after, limit: query.limit });
    return { requests: requests.map(withCurrency), ...(next ? { next } : {}) };
  },
});

export const getQuotaRequest = apiRoute({
  method: "GET",
  path: "/api/v1/quota-requests/{id}",
  summary: "One quota request with its timeline (and, for platform admins while pending, cost, capacity impact and the cluster diff)",
  tag: TAG,
  params: requestParams,
  response: quotaRequestDetailOut,
  handler: (ctx, { params }) => detailOrNotFound(ctx, params.id),
});

export const approveQuotaRequestRoute = apiRoute({
  method: "POST",
  path: "/api/v1/quota-requests/{id}/approve",
  summary: "Approve a pending request (platform admins), quoting its version; give smaller amounts or an earlier endsAt to approve with changes",
  description:
    "Omitted amounts grant what was asked. Someone who decided first (or changed the request) makes this a 409. Above the second-approval cost limit the first approval only records itself (`awaitingSecondApproval`), and a different platform admin completes it.",
  tag: TAG,
  params: requestParams,
  body: approveQuotaRequest.input,
  bodyFromPath: ["requestId"],
  response: quotaRequestDetailOut,
  async handler(ctx, { params, body }) {
    assertRequestId(params.id);
    await executeCommand(approveQuotaRequest, ctx, commandInput(body, { requestId: params.id }));
    return detailOrNotFound(ctx, params.id);
  },
});

export const rejectQuotaRequestRoute = apiRoute({
  method: "POST",
  path: "/api/v1/quota-requests/{id}/reject",
  summary: "Reject a pending request with a reason the requester sees (platform admins), quoting its version",
  tag: TAG,
  params: requestParams,
  body: rejectQuotaRequest.input,
  bodyFromPath: ["requestId"],
  response: quotaRequestDetailOut,
  async handler(ctx, { params, body }) {
    assertRequestId(params.id);
    await executeCommand(rejectQuotaRequest, ctx, commandInput(body, { requestId: params.id }));
    return detailOrNotFound(ctx, params.id);
  },
});

export const cancelQuotaRequestRoute = apiRoute({
  method: "POST",
  path: "/api/v1/quota-requests/{id}/cancel",
  summary: "Withdraw your own request while it is pending",
  tag: TAG,
  params: requestParams,
  response: quotaRequestDetailOut,
  async handler(ctx, { params }) {
    assertRequestId(params.id);
    await executeCommand(cancelQuotaRequest, ctx, { requestId: params.id });
    return detailOrNotFound(ctx, params.id);
  },
});

export const editQuotaRequestRoute = apiRoute({
  method: "PATCH",
  path: "/api/v1/quota-requests/{id}",
  summary: "Edit your own pending request into a new revision, quoting its version; the body is the whole new content (as when asking)",
  description:
    "The earlier content is kept (`revisions`), the version moves on, and a first approval of the old content is withdrawn: an approval quoting the version from before the edit is a 409. An edit is never approved automatically.",
  tag: TAG,
  params: requestParams,
  body: editQuotaRequest.input,
  bodyFromPath: ["requestId"],
  response: quotaRequestDetailOut,
  async handler(ctx, { params, body }) {
    assertRequestId(params.id);
    await executeCommand(editQuotaRequest, ctx, commandInput(body, { requestId: params.id }));
    return detailOrNotFound(ctx, params.id);
  },
});

/** The comments of a request the caller may read, or not found (also for those who see the request but are not one of its sides). */
async function commentsOrNotFound(ctx: CommandContext, id: string) {
  const detail = await requestDetail(ctx, id);
  if (!detail?.conversation.comments) throw new AppError("not_found");
  return { comments: detail.conversation.comments };
}

export const listQuotaRequestComments = apiRoute({
  method: "GET",
  path: "/api/v1/quota-requests/{id}/comments",
  summary: "The conversation on a request, oldest first (its requester, the tenant's admins and platform admins)",
  tag: TAG,
  params: requestParams,
  response: z.object({ comments: z.array(quotaRequestCommentOut) }),
  async handler(ctx, { params }) {
    assertRequestId(params.id);
    return commentsOrNotFound(ctx, params.id);
  },
});

export const commentOnQuotaRequestRoute = apiRoute({
  method: "POST",
  path: "/api/v1/quota-requests/{id}/comments",
  summary: "Write in a request's conversation; the other side is notified",
  tag: TAG,
  params: requestParams,
  body: commentOnQuotaRequest.input,
  bodyFromPath: ["requestId"],
  response: z.object({ comments: z.array(quotaRequestCommentOut) }),
  status: 201,
  async handler(ctx, { params, body }) {
    assertRequestId(params.id);
    await executeCommand(commentOnQuotaRequest, ctx, commandInput(body, { requestId: params.id }));
    return commentsOrNotFound(ctx, params.id);
  },
});

export const getProjectQuota = apiRoute({
  method: "GET",
  path: "/api/v1/tenants/{tenant}/projects/{project}/quota",
  summary: "The project's effective quota now (starting quota plus grants in force) and the grants it is made of",
  tag: TAG,
  params: projectParams,
  response: z.object({
    tenantSlug: z.string(),
    projectSlug: z.string(),
    effective: effectiveQuotaOut,
    gpusByModel: z.record(z.string(), z.number().int()).describe("GPUs in force by the model people ask for"),
    base: z.object({ cpuCores: z.number(), memoryBytes: z.number().int(), storageBytes: z.number().int(), pvcCount: z.number().int() }).describe("The platform's starting quota of every project"),
    grants: z.array(quotaGrantOut).describe("Newest first, including ended and future ones"),
  }),
  async handler(ctx, { params }) {
    const view = await projectQuota(ctx, params.tenant, params.project);
    return { tenantSlug: params.tenant, projectSlug: params.project, effective: view.effective, gpusByModel: view.gpusByModel, base: view.base, grants: view.grants };
  },
});

const grantParams = projectParams.extend({ grant: z.string().max(64) });

export const extendQuotaGrantRoute = apiRoute({
  method: "POST",
  path: "/api/v1/tenants/{tenant}/projects/{project}/quota-grants/{grant}/extension",
  summary: "Ask to keep a time-bound grant of the project longer (members and tenant admins): a new end after its current one, and why",
  description:
    "Creates a pending request that names the grant (`extension`), with the grant's amounts; platform admins approve it (optionally to an earlier end) or reject it like any request. Approval moves the grant's end; rejection leaves it. A grant that has ended, is permanent or already has an extension waiting is refused; a grant of another project is not found.",
  tag: TAG,
  params: grantParams,
  body: requestQuotaExtension.input,
  bodyFromPath: ["tenant", "project", "grantId"],
  response: quotaRequestDetailOut,
  status: 201,
  async handler(ctx, { params, body }) {
    if (!REQUEST_ID.test(params.grant)) throw new AppError("not_found");
    const created = await executeCommand(requestQuotaExtension, ctx, commandInput(body, { tenant: params.tenant, project: params.project, grantId: params.grant }));
    return detailOrNotFound(ctx, created.request.id);
  },
});
