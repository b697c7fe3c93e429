import "server-only";
import { and, asc, desc, eq, ne } from "drizzle-orm";
import { principals, projects, quotaGrants, quotaRequestComments, quotaRequestRevisions, quotaRequests } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { can, mayDiscussRequest, mayEditRequest, type RequestSides } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import type { QuotaAmounts } from "./amounts";
import { linesOfGrants, linesOfRequests } from "./grant-store";
import { requestAmountsOf } from "./request-amounts";
import { contentChanges, type ContentChange, type RequestContent } from "./revision-changes";

type RequestRow = typeof quotaRequests.$inferSelect;

export interface RequestComment {
  id: string;
  author: string;
  /** Whether the author is the requester (the thread shows the two sides apart). */
  byRequester: boolean;
  revision: number;
  body: string;
  createdAt: Date;
}

export interface RequestRevision extends RequestContent {
  revision: number;
  /** What this revision changed from the one before (empty for the first). */
  changes: ContentChange[];
}

export interface RequestConversation {
  /** Every revision, oldest first; the last is what the request says now. */
  revisions: RequestRevision[];
  /** Null when the actor is not one of the request's two sides (they do not read it). */
  comments: RequestComment[] | null;
  canComment: boolean;
  canEdit: boolean;
}

/** A request's revisions and, for its two sides, its comments. The caller has checked the actor may see the request. */
export async function requestConversation(ctx: CommandContext, r: RequestRow): Promise<RequestConversation> {
  const sides: RequestSides = r;
  const discuss = mayDiscussRequest(ctx.actor, sides, ctx.now);
  const [earlier, currentLines, comments] = await Promise.all([
    ctx.db.select().from(quotaRequestRevisions).where(eq(quotaRequestRevisions.requestId, r.id)).orderBy(asc(quotaRequestRevisions.revision)),
    linesOfRequests(ctx.db, [r.id]),
    discuss ? ctx.db.select().from(quotaRequestComments).where(eq(quotaRequestComments.requestId, r.id)).orderBy(asc(quotaRequestComments.createdAt), asc(quotaRequestComments.id)) : Promise.resolve(null),
  ]);
  const contents: (RequestContent & { revision: number })[] = earlier.map((v) => ({
    revision: v.revision,
    amounts: requestAmountsOf(v, v.lines.map((l) => ({ ...l, lendLimit: null }))),
    endsAt: v.endsAt,
    justification: v.justification,
    monthlyCost: Number(v.monthlyCost),
    writtenAt: v.writtenAt,
  }));
  contents.push({
    revision: r.revision,
    amounts: requestAmountsOf(r, currentLines.get(r.id) ?? []),
    endsAt: r.endsAt,
    justification: r.justification,
    monthlyCost: Number(r.monthlyCost),
    writtenAt: earlier.at(-1)?.replacedAt ?? r.createdAt,
  });
  const currency = config().currency;
  return {
    revisions: contents.map((c, i) => ({ ...c, changes: i === 0 ? [] : contentChanges(contents[i - 1]!, c, currency) })),
    comments:
      comments?.map((c) => ({ id: c.id, author: c.authorLabel, byRequester: c.authorPrincipalId !== null && c.authorPrincipalId === r.requestedBy, revision: c.revision, body: c.body, createdAt: c.createdAt })) ?? null,
    canComment: discuss,
    // An extension carries its grant's amounts: it is cancelled and asked again, not edited.
    canEdit: r.status === "pending" && r.extendsGrantId === null && mayEditRequest(ctx.actor, sides, ctx.now),
  };
}

export interface EarlierRequest {
  id: string;
  projectSlug: string;
  projectName: string;
  requester: string | null;
  amounts: QuotaAmounts;
  endsAt: Date | null;
  status: RequestRow["status"];
  decisionNote: string | null;
  createdAt: Date;
  decidedAt: Date | null;
}

export interface EarlierGrant {
  id: string;
  amounts: QuotaAmounts;
  source: string;
  startsAt: Date;
  endsAt: Date | null;
}

export interface RequestHistory {
  /** The tenant's other requests, newest first (at most `limit`), with their decisions and dates. */
  tenantRequests: EarlierRequest[];
  /** The project's grants, newest first (at most `limit`), ended ones included. */
  projectGrants: EarlierGrant[];
}

/**
 * What the tenant and the project asked for and were granted before, for the
 * person deciding a request; null for anyone who may not read the tenant's
 * requests.
 */
export async function requestHistory(ctx: CommandContext, r: Pick<RequestRow, "id" | "tenantId" | "projectId">, limit = 10): Promise<RequestHistory | null> {
  if (!can(ctx.actor, "tenant.quota.view", { kind: "tenant", tenantId: r.tenantId }, ctx.now)) return null;
  const [requests, grants] = await Promise.all([
    ctx.db
      .select({ r: quotaRequests, projectSlug: projects.slug, projectName: projects.name, requester: principals.displayName })
      .from(quotaRequests)
      .innerJoin(projects, eq(projects.id, quotaRequests.projectId))
      .leftJoin(principals, eq(principals.id, quotaRequests.requestedBy))
      .where(and(eq(quotaRequests.tenantId, r.tenantId), ne(quotaRequests.id, r.id)))
      .orderBy(desc(quotaRequests.createdAt))
      .limit(limit),
    ctx.db.select().from(quotaGrants).where(eq(quotaGrants.projectId, r.projectId)).orderBy(desc(quotaGrants.startsAt)).limit(limit),
  ]);
  const [requestLines, grantLines] = await Promise.all([
    linesOfRequests(
      ctx.db,
      requests.map((x) => x.r.id),
    ),
    linesOfGrants(
      ctx.db,
      grants.map((g) => g.id),
    ),
  ]);
  return {
    tenantRequests: requests.map(({ r: x, projectSlug, projectName, requester }) => ({
      id: x.id,
      projectSlug,
      projectName,
      requester,
      amounts: requestAmountsOf(x, requestLines.get(x.id) ?? []),
      endsAt: x.endsAt,
      status: x.status,
      decisionNote: x.decisionNote,
      createdAt: x.createdAt,
      decidedAt: x.decidedAt,
    })),
    projectGrants: grants.map((g) => ({ id: g.id, amounts: requestAmountsOf(g, grantLines.get(g.id) ?? []), source: g.source, startsAt: g.startsAt, endsAt: g.endsAt })),
  };
}
