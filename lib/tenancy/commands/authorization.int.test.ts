import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { accessExtensionRequests, projectGrants, projects, tenants } from "@/db/schema";
import { verifyAuditChainCommand, writeAuditCheckpointCommand } from "@/lib/audit/commands";
import { auditFilterInput, listAuditEvents, serviceAccountAuditEvents } from "@/lib/audit/queries";
import type { z } from "zod";
import type { Resource } from "@/lib/auth/actor";
import { executeCommand, type Command } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { loadActor } from "@/lib/auth/load-actor";
import { authenticateToken } from "@/lib/auth/token-auth";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf } from "@/test/fixtures";
import {
  addGrant,
  DAY,
  disablePrincipal,
  fingerprint,
  newMember,
  type Outcome,
  outcomeOf,
  projectIdOf,
  seededDatabase,
  unique,
  uniqueEmail,
  userWithEmail,
} from "@/test/tenancy";
import { createServiceAccountAsOperator, mintTokenAsOperator } from "../operator";
import { serviceAccountDetail } from "../service-account-queries";
import { acceptInvitation } from "./accept-invitation";
import { extendCollaborator, inviteCollaborator } from "./collaborators";
import { declineExtension, grantExtension, requestExtension } from "./extensions";
import { createProject } from "./create-project";
import { createTenant } from "./create-tenant";
import { changeMemberRole, inviteMember, removeMember, revokeInvitation } from "./members";
import { mintTokenWithRole } from "./mint-token-with-role";
import { grantProjectRole, revokeProjectGrant } from "./project-access";
import { archiveProject, updateProject } from "./projects";
import {
  createServiceAccount,
  deleteServiceAccount,
  mintToken,
  revokeToken,
  rotateToken,
  setServiceAccountDisabled,
  updateServiceAccount,
} from "./service-accounts";
import { setTenantStatus } from "./set-tenant-status";
import { setTenantClusterSettings } from "./tenant-cluster-settings";
import { reconcileEverything, reconcileTarget } from "@/lib/cluster/commands";
import { createQuotaRequest } from "@/lib/quota/commands/requests";

/**
 * Who may run which command, on their own tenant and on the other one: every
 * command of lib/tenancy/commands and lib/audit/commands against a table of
 * expected outcomes per persona. A refusal must write nothing at all; the same
 * input then succeeds for the personas allowed to use it, so a refusal is never
 * an accident of bad input.
 */

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const CLEO_EXPIRES = new Date(SEEDED_AT.getTime() + 60 * DAY);
const later = (ms: number) => new Date(NOW.getTime() + ms);

const WHO = ["priya", "alex", "bo", "dana", "vic", "cleo", "cleoExpired", "bot"] as const;
type Who = (typeof WHO)[number];
type Row = Record<Who, Outcome>;
type TenantSlug = "vision-lab" | "language-models";
const TENANTS: TenantSlug[] = ["vision-lab", "language-models"];
/** The project each tenant's project-level commands act on: the ones Dana, Cleo and the bot hold grants on. */
const PROJECT: Record<TenantSlug, string> = { "vision-lab": "detector-training", "language-models": "chat-eval" };

// Actions on a tenant that its admins may take (members, service accounts, projects).
const TENANT_ADMIN_ACTION: Record<TenantSlug, Row> = {
  "vision-lab": { priya: "ok", alex: "ok", bo: "not_found", dana: "forbidden", vic: "not_found", cleo: "not_found", cleoExpired: "not_found", bot: "not_found" },
  "language-models": { priya: "ok", alex: "not_found", bo: "ok", dana: "not_found", vic: "forbidden", cleo: "not_found", cleoExpired: "not_found", bot: "not_found" },
};
// Actions on a project that the tenant's admins may take (access, edit, archive).
const PROJECT_ADMIN_ACTION: Record<TenantSlug, Row> = {
  "vision-lab": { priya: "ok", alex: "ok", bo: "not_found", dana: "forbidden", vic: "not_found", cleo: "not_found", cleoExpired: "not_found", bot: "forbidden" },
  "language-models": { priya: "ok", alex: "not_found", bo: "ok", dana: "not_found", vic: "forbidden", cleo: "forbidden", cleoExpired: "not_found", bot: "not_found" },
};
// Asking for quota on a project: its members (the bot's grant too), collaborators, tenant admins; not viewers.
const PROJECT_MEMBER_ACTION: Record<TenantSlug, Row> = {
  "vision-lab": { priya: "ok", alex: "ok", bo: "not_found", dana: "ok", vic: "not_found", cleo: "not_found", cleoExpired: "not_found", bot: "ok" },
  "language-models": { priya: "ok", alex: "not_found", bo: "ok", dana: "not_found", vic: "forbidden", cleo: "ok", cleoExpired: "not_found", bot: "not_found" },
};
// Asking for more time on one's own time-bound grant: only Cleo holds one (Dana's grant does not expire);
// a service account's token may not ask, nor an admin without a grant of their own.
const EXTENSION_REQUEST: Record<TenantSlug, Row> = {
  "vision-lab": { priya: "forbidden", alex: "forbidden", bo: "not_found", dana: "conflict", vic: "not_found", cleo: "not_found", cleoExpired: "not_found", bot: "forbidden" },
  "language-models": { priya: "forbidden", alex: "not_found", bo: "forbidden", dana: "not_found", vic: "forbidden", cleo: "ok", cleoExpired: "not_found", bot: "not_found" },
};
// Actions on a tenant that only a platform admin may take.
const PLATFORM_ON_TENANT: Record<TenantSlug, Row> = {
  "vision-lab": { priya: "ok", alex: "forbidden", bo: "not_found", dana: "forbidden", vic: "not_found", cleo: "not_found", cleoExpired: "not_found", bot: "not_found" },
  "language-models": { priya: "ok", alex: "not_found", bo: "forbidden", dana: "not_found", vic: "forbidden", cleo: "not_found", cleoExpired: "not_found", bot: "not_found" },
};
// Cluster commands name the tenant by id and act on the platform: refusals are forbidden, as for any platform action.
const PLATFORM_ON_TENANT_BY_ID: Record<TenantSlug, Row> = {
  "vision-lab": { priya: "ok", alex: "forbidden", bo: "forbidden", dana: "forbidden", vic: "forbidden", cleo: "forbidden", cleoExpired: "forbidden", bot: "forbidden" },
  "language-models": { priya: "ok", alex: "forbidden", bo: "forbidden", dana: "forbidden", vic: "forbidden", cleo: "forbidden", cleoExpired: "forbidden", bot: "forbidden" },
};
// Platform actions: anyone signed in can see the platform exists, so refusals are forbidden.
const PLATFORM_ACTION: Row = { priya: "ok", alex: "forbidden", bo: "forbidden", dana: "forbidden", vic: "forbidden", cleo: "forbidden", cleoExpired: "forbidden", bot: "forbidden" };
// Accepting someone else's invitation: open to anyone signed in, refused by the command itself.
const PLATFORM_ACTION_REFUSED_TO_ALL: Row = { ...PLATFORM_ACTION, priya: "forbidden" };

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let tenantId: Record<string, string>;
let ctx: Record<Who, CommandContext>;

beforeAll(async () => {
  ({ db, tenantId } = seeded);
  // A service account of vision-lab holding a member role on detector-training, as its token presents it.
  await createServiceAccountAsOperator(db, { tenant: "vision-lab", name: "matrix-bot", description: "", projectRoles: [{ project: "detector-training", role: "member" }] }, SEEDED_AT);
  const { token } = await mintTokenAsOperator(db, "vision-lab", "matrix-bot", null, SEEDED_AT);
  const bot = await authenticateToken(db, token, NOW, []);
  if (!bot.ok) throw new Error(`bot token refused: ${bot.reason}`);
  ctx = {
    priya: await contextOf(db, "platform-admin", NOW),
    alex: await contextOf(db, "vision-admin", NOW),
    bo: await contextOf(db, "language-admin", NOW),
    dana: await contextOf(db, "data-scientist", NOW),
    vic: await contextOf(db, "viewer", NOW),
    cleo: await contextOf(db, "collaborator", NOW),
    cleoExpired: await contextOf(db, "collaborator", CLEO_EXPIRES),
    bot: { actor: bot.actor, db, now: NOW },
  };
});

async function tenantRow(slug: TenantSlug) {
  const [row] = await db.select().from(tenants).where(eq(tenants.slug, slug));
  return row!;
}

/** A service account of the tenant (made by the operator), and optionally a token of it. */
async function serviceAccountIn(tenant: TenantSlug, withToken = false) {
  const name = unique("sa");
  await createServiceAccountAsOperator(db, { tenant, name, description: "", projectRoles: [] }, NOW);
  const prefix = withToken ? (await mintTokenAsOperator(db, tenant, name, null, NOW)).prefix : undefined;
  return { tenant, serviceAccount: name, prefix };
}

/** A guest's pending extension request on the tenant's project (set-up rows, not a command). */
async function pendingExtension(tenant: TenantSlug) {
  const grantId = await collaboratorGrant(tenant);
  const projectId = await projectIdOf(db, tenant, PROJECT[tenant]);
  const [guest] = await db.select({ principalId: projectGrants.principalId }).from(projectGrants).where(eq(projectGrants.id, grantId));
  const [row] = await db
    .insert(accessExtensionRequests)
    .values({ tenantId: tenantId[tenant]!, projectId, grantId, requestedBy: guest!.principalId, currentExpiresAt: later(10 * DAY), requestedUntil: later(40 * DAY), reason: "to finish the study", createdAt: NOW })
    .returning({ id: accessExtensionRequests.id });
  return { requestId: row!.id };
}

async function collaboratorGrant(tenant: TenantSlug) {
  const guest = await userWithEmail(db, uniqueEmail("guest"), NOW);
  return addGrant(db, { projectId: await projectIdOf(db, tenant, PROJECT[tenant]), principalId: guest, role: "viewer", expiresAt: later(10 * DAY), grantedBy: null, createdAt: NOW });
}

/** A command by name, run through executeCommand on any input (the matrix feeds each its own kind). */
type Runner = { name: string; run: (ctx: CommandContext, input: unknown) => Promise<unknown> };
function runner<S extends z.ZodType, T extends Resource, R>(command: Command<S, T, R>): Runner {
  return { name: command.name, run: (context, input) => executeCommand(command, context, input) };
}

type Case = {
  command: Runner;
  expected: Record<TenantSlug, Row>;
  /** A valid input on this tenant: a fresh one per call, with whatever rows it needs. */
  input: (tenant: TenantSlug) => Promise<Record<string, unknown>>;
  /** Put the demo data back after a successful run that would disturb later cases. */
  undo?: (tenant: TenantSlug) => Promise<void>;
};

const CASES: Case[] = [
  { command: runner(inviteMember), expected: TENANT_ADMIN_ACTION, input: (tenant) => Promise.resolve({ tenant, email: uniqueEmail("invitee"), role: "member" }) },
  {
    command: runner(revokeInvitation),
    expected: TENANT_ADMIN_ACTION,
    input: async (tenant) => ({ tenant, invitationId: (await executeCommand(inviteMember, ctx.priya, { tenant, email: uniqueEmail("invitee"), role: "viewer" })).invitationId }),
  },
  {
    command: runner(changeMemberRole),
    expected: TENANT_ADMIN_ACTION,
    input: async (tenant) => ({ tenant, principalId: await newMember(db, tenantId[tenant]!, "member", NOW), role: "viewer", version: 1 }),
  },
  { command: runner(removeMember), expected: TENANT_ADMIN_ACTION, input: async (tenant) => ({ tenant, principalId: await newMember(db, tenantId[tenant]!, "member", NOW) }) },
  { command: runner(createProject), expected: TENANT_ADMIN_ACTION, input: (tenant) => Promise.resolve({ tenant, name: "Matrix project", slug: unique("matrix") }) },
  { command: runner(createServiceAccount), expected: TENANT_ADMIN_ACTION, input: (tenant) => Promise.resolve({ tenant, name: unique("sa"), description: "" }) },
  { command: runner(updateServiceAccount), expected: TENANT_ADMIN_ACTION, input: async (tenant) => ({ ...(await serviceAccountIn(tenant)), description: "changed" }) },
  { command: runner(setServiceAccountDisabled), expected: TENANT_ADMIN_ACTION, input: async (tenant) => ({ ...(await serviceAccountIn(tenant)), disabled: true }) },
  { command: runner(deleteServiceAccount), expected: TENANT_ADMIN_ACTION, input: async (tenant) => serviceAccountIn(tenant) },
  { command: runner(mintToken), expected: TENANT_ADMIN_ACTION, input: async (tenant) => ({ ...(await serviceAccountIn(tenant)), expiresInDays: 30 }) },
  {
    command: runner(mintTokenWithRole),
    expected: TENANT_ADMIN_ACTION,
    input: async (tenant) => ({ ...(await serviceAccountIn(tenant)), expiresInDays: 30, project: PROJECT[tenant], role: "viewer" }),
  },
  { command: runner(revokeToken), expected: TENANT_ADMIN_ACTION, input: async (tenant) => serviceAccountIn(tenant, true) },
  { command: runner(rotateToken), expected: TENANT_ADMIN_ACTION, input: async (tenant) => ({ ...(await serviceAccountIn(tenant, true)), graceHours: 1, expiresInDays: 30 }) },
  {
    command: runner(inviteCollaborator),
    expected: PROJECT_ADMIN_ACTION,
    input: (tenant) => Promise.resolve({ tenant, project: PROJECT[tenant], email: uniqueEmail("guest"), role: "viewer", expiresAt: later(30 * DAY) }),
  },
  {
    command: runner(extendCollaborator),
    expected: PROJECT_ADMIN_ACTION,
    input: async (tenant) => ({ tenant, project: PROJECT[tenant], grantId: await collaboratorGrant(tenant), expiresAt: later(20 * DAY), version: 1 }),
  },
  {
    command: runner(requestExtension),
    expected: EXTENSION_REQUEST,
    input: (tenant) => Promise.resolve({ tenant, project: PROJECT[tenant], until: later(70 * DAY), reason: "The study runs another month." }),
    undo: async () => {
      await db.delete(accessExtensionRequests).where(eq(accessExtensionRequests.status, "pending"));
    },
  },
  { command: runner(grantExtension), expected: PROJECT_ADMIN_ACTION, input: (tenant) => pendingExtension(tenant) },
  { command: runner(declineExtension), expected: PROJECT_ADMIN_ACTION, input: (tenant) => pendingExtension(tenant) },
  {
    command: runner(grantProjectRole),
    expected: PROJECT_ADMIN_ACTION,
    input: async (tenant) => ({ tenant, project: PROJECT[tenant], principalId: await newMember(db, tenantId[tenant]!, "member", NOW), role: "viewer" }),
  },
  { command: runner(revokeProjectGrant), expected: PROJECT_ADMIN_ACTION, input: async (tenant) => ({ tenant, project: PROJECT[tenant], grantId: await collaboratorGrant(tenant) }) },
  {
    command: runner(updateProject),
    expected: PROJECT_ADMIN_ACTION,
    input: async (tenant) => {
      const [row] = await db.select({ version: projects.version }).from(projects).where(eq(projects.id, await projectIdOf(db, tenant, PROJECT[tenant])));
      return { tenant, project: PROJECT[tenant], name: unique("Renamed"), description: "", version: row!.version };
    },
  },
  {
    command: runner(archiveProject),
    expected: PROJECT_ADMIN_ACTION,
    input: (tenant) => Promise.resolve({ tenant, project: PROJECT[tenant] }),
    undo: async (tenant) => {
      await db.update(projects).set({ archivedAt: null }).where(eq(projects.id, await projectIdOf(db, tenant, PROJECT[tenant])));
    },
  },
  {
    command: runner(createQuotaRequest),
    expected: PROJECT_MEMBER_ACTION,
    input: (tenant) => Promise.resolve({ tenant, project: PROJECT[tenant], cpuCores: "1", justification: "Authorization matrix request." }),
  },
  {
    command: runner(setTenantClusterSettings),
    expected: PLATFORM_ON_TENANT,
    input: async (tenant) => ({ tenant, runtimeClass: "gvisor", workloadIdentity: "", version: (await tenantRow(tenant)).version }),
  },
  {
    command: runner(reconcileTarget),
    expected: PLATFORM_ON_TENANT_BY_ID,
    input: (tenant) => Promise.resolve({ tenantId: tenantId[tenant] }),
  },
  {
    command: runner(setTenantStatus),
    expected: PLATFORM_ON_TENANT,
    input: (tenant) => Promise.resolve({ tenant, status: "disabled" }),
    undo: async (tenant) => {
      await executeCommand(setTenantStatus, ctx.priya, { tenant, status: "active" });
    },
  },
];

const PLATFORM_CASES: { command: Runner; input: () => Record<string, unknown> }[] = [
  { command: runner(createTenant), input: () => ({ name: "Matrix tenant", slug: unique("matrix") }) },
  { command: runner(verifyAuditChainCommand), input: () => ({}) },
  { command: runner(writeAuditCheckpointCommand), input: () => ({}) },
  { command: runner(reconcileEverything), input: () => ({}) },
];

/**
 * Run the command as every persona: first all who should be refused, on one
 * input (checking that nothing was written), then those who should succeed,
 * the first of them on that same input.
 */
async function outcomesOf(command: Runner, expected: Row, input: () => Promise<Record<string, unknown>>, undo?: () => Promise<void>) {
  const outcomes = {} as Row;
  const shared = await input();
  const before = await fingerprint(db);
  for (const who of WHO.filter((w) => expected[w] !== "ok")) outcomes[who] = await outcomeOf(command.run(ctx[who], shared));
  const afterRefusals = await fingerprint(db);
  let first = true;
  for (const who of WHO.filter((w) => expected[w] === "ok")) {
    outcomes[who] = await outcomeOf(command.run(ctx[who], first ? shared : await input()));
    first = false;
    await undo?.();
  }
  return { outcomes, before, afterRefusals };
}

describe(`authorization of every command, own tenant and the other (${databaseLabel()})`, () => {
  describe.each(CASES.map((c) => [c.command.name, c] as const))("%s", (_name, c) => {
    it.each(TENANTS)("on %s", async (tenant) => {
      const { outcomes, before, afterRefusals } = await outcomesOf(
        c.command,
        c.expected[tenant],
        () => c.input(tenant),
        c.undo && (() => c.undo!(tenant)),
      );
      expect(outcomes).toEqual(c.expected[tenant]);
      expect(afterRefusals).toEqual(before);
    });
  });

  it.each(PLATFORM_CASES.map((c) => [c.command.name, c] as const))("%s (platform)", async (_name, c) => {
    const { outcomes, before, afterRefusals } = await outcomesOf(c.command, PLATFORM_ACTION, () => Promise.resolve(c.input()));
    expect(outcomes).toEqual(PLATFORM_ACTION);
    expect(afterRefusals).toEqual(before);
  });

  it("acceptInvitation: anyone signed in may try a link, only its addressee succeeds", async () => {
    const email = uniqueEmail("addressee");
    // Sent the day before Cleo's grant ends, so the link is still open on every persona's clock.
    const sentAt = new Date(CLEO_EXPIRES.getTime() - DAY);
    const { token } = await executeCommand(inviteMember, { ...ctx.priya, now: sentAt }, { tenant: "vision-lab", email, role: "viewer" });
    const before = await fingerprint(db);
    const outcomes = {} as Row;
    for (const who of WHO) outcomes[who] = await outcomeOf(executeCommand(acceptInvitation, { ...ctx[who], now: CLEO_EXPIRES }, { token }));
    expect(outcomes).toEqual(PLATFORM_ACTION_REFUSED_TO_ALL);
    expect(await fingerprint(db)).toEqual(before);

    const addressee = await userWithEmail(db, email, NOW);
    const actor = await loadActor(db, addressee, []);
    expect(await outcomeOf(executeCommand(acceptInvitation, { actor: actor!, db, now: CLEO_EXPIRES }, { token }))).toBe("ok");
  });

  it("gives a disabled principal no actor, so nothing can run on its behalf", async () => {
    const admin = await newMember(db, tenantId["vision-lab"]!, "tenant_admin", NOW);
    expect(await loadActor(db, admin, [])).not.toBeNull();
    await disablePrincipal(db, admin, later(1000));
    expect(await loadActor(db, admin, [])).toBeNull();

    // The same for a service account: its token is refused, and its actor is gone.
    const { serviceAccount } = await serviceAccountIn("vision-lab");
    const { token } = await mintTokenAsOperator(db, "vision-lab", serviceAccount, null, NOW);
    await executeCommand(setServiceAccountDisabled, ctx.alex, { tenant: "vision-lab", serviceAccount, disabled: true });
    const auth = await authenticateToken(db, token, later(2000), []);
    expect(auth).toMatchObject({ ok: false, reason: "disabled" });
  });
});

/**
 * The service account's own page (/tenants/[tenant]/service-accounts/[account]) reads through
 * serviceAccountDetail and, for its history, serviceAccountAuditEvents: who gets the page,
 * and what of it. The tokens and the history are the admins'; a revoked token reaches nothing.
 */
describe(`the service account page, own tenant and the other (${databaseLabel()})`, () => {
  const PAGE: Record<TenantSlug, Row> = {
    "vision-lab": { priya: "ok", alex: "ok", bo: "not_found", dana: "ok", vic: "not_found", cleo: "not_found", cleoExpired: "not_found", bot: "not_found" },
    "language-models": { priya: "ok", alex: "not_found", bo: "ok", dana: "not_found", vic: "ok", cleo: "not_found", cleoExpired: "not_found", bot: "not_found" },
  };
  const MANAGES: Record<TenantSlug, Who[]> = { "vision-lab": ["priya", "alex"], "language-models": ["priya", "bo"] };

  it.each(TENANTS)("on %s", async (tenant) => {
    const { serviceAccount, prefix } = await serviceAccountIn(tenant, true);
    const outcomes = {} as Row;
    for (const who of WHO) {
      const read = serviceAccountDetail(ctx[who], tenant, serviceAccount);
      outcomes[who] = await outcomeOf(read);
      if (outcomes[who] !== "ok") continue;
      const { account, canManage } = await read;
      const manages = MANAGES[tenant].includes(who);
      expect(canManage, who).toBe(manages);
      expect(account.tokens.map((t) => t.prefix), who).toEqual(manages ? [prefix] : []);
      const history = await serviceAccountAuditEvents(ctx[who], { tenantId: tenantId[tenant]!, principalId: account.principalId, tokenPrefixes: [prefix!] }, { limit: 20 });
      expect(history?.events.map((e) => e.action), who).toEqual(manages ? ["api_token.created", "service_account.created"] : undefined);
    }
    expect(outcomes).toEqual(PAGE[tenant]);
  });

  it("answers another tenant's account, asked under one's own tenant, as not found", async () => {
    const { serviceAccount } = await serviceAccountIn("language-models");
    expect(await outcomeOf(serviceAccountDetail(ctx.alex, "vision-lab", serviceAccount))).toBe("not_found");
    expect(await outcomeOf(serviceAccountDetail(ctx.alex, "vision-lab", "no-such-account"))).toBe("not_found");
    expect(await outcomeOf(serviceAccountDetail(ctx.alex, "no-such-tenant", serviceAccount))).toBe("not_found");
  });

  it("gives a revoked token of an account no actor, so it reaches neither page nor command", async () => {
    const { serviceAccount, prefix } = await serviceAccountIn("vision-lab");
    const { token, prefix: minted } = await mintTokenAsOperator(db, "vision-lab", serviceAccount, null, NOW);
    expect(prefix).toBeUndefined();
    await executeCommand(revokeToken, ctx.alex, { tenant: "vision-lab", serviceAccount, prefix: minted });
    expect(await authenticateToken(db, token, later(1000), [])).toMatchObject({ ok: false, reason: "revoked" });
  });
});

describe(`listAuditEvents (${databaseLabel()})`, () => {
  const T1 = new Date("2027-06-01T10:00:00.000Z");
  const T2 = new Date("2027-06-01T11:00:00.000Z");
  const T3 = new Date("2027-06-01T12:00:00.000Z");
  let visionProject: string;
  let languageProject: string;
  const list = (who: Who, filter: Record<string, unknown> = {}) => listAuditEvents(ctx[who], auditFilterInput.parse(filter));

  beforeAll(async () => {
    const at = (who: Who, now: Date) => ({ ...ctx[who], now });
    visionProject = (await executeCommand(createProject, at("alex", T1), { tenant: "vision-lab", name: "Audit one", slug: "audit-one" })).id;
    languageProject = (await executeCommand(createProject, at("bo", T2), { tenant: "language-models", name: "Audit two", slug: "audit-two" })).id;
    await executeCommand(createTenant, at("priya", T3), { name: "Audit three", slug: "audit-three" });
  });

  it("shows a platform admin every event, newest first, with verification", async () => {
    const { events, scope, canVerify } = await list("priya", { limit: 5000 });
    expect(scope).toBe("all");
    expect(canVerify).toBe(true);
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(events.map((e) => e.tenantSlug)).toEqual(expect.arrayContaining([null, "vision-lab", "language-models", "audit-three"]));
    const verified = await executeCommand(verifyAuditChainCommand, ctx.priya, {});
    expect(verified.chain).toEqual({ intact: true, events: events.length });
    // No checkpoint key in the test environment: the page says the end of the log cannot be checked.
    expect(verified.summary.status).toBe("unchecked");
  });

  it("filters by tenant, actor, action, target and time for a platform admin", async () => {
    const vision = (await list("priya", { tenant: "vision-lab", limit: 5000 })).events;
    expect(vision.length).toBeGreaterThan(0);
    expect(vision.every((e) => e.tenantSlug === "vision-lab")).toBe(true);
    expect(vision.map((e) => e.targetId)).toContain(visionProject);
    expect(vision.map((e) => e.targetId)).not.toContain(languageProject);

    const alexId = ctx.alex.actor.principalId;
    const byEmail = (await list("priya", { actor: "ALEX@vision", limit: 5000 })).events;
    expect(byEmail.length).toBeGreaterThan(0);
    expect(byEmail.every((e) => e.actorLabel === "alex@vision.allot.demo")).toBe(true);
    const byId = (await list("priya", { actor: alexId, limit: 5000 })).events;
    expect(byId.map((e) => e.seq)).toEqual(byEmail.map((e) => e.seq));

    const created = (await list("priya", { action: "project.created", limit: 5000 })).events;
    expect(created.every((e) => e.action === "project.created")).toBe(true);
    expect(created.map((e) => e.targetId)).toEqual(expect.arrayContaining([visionProject, languageProject]));

    expect((await list("priya", { target: visionProject })).events.map((e) => [e.action, e.targetId])).toEqual([["project.created", visionProject]]);

    const window = (await list("priya", { from: T2.toISOString(), to: T3.toISOString() })).events;
    expect(window.map((e) => [e.action, e.at])).toEqual([["project.created", T2]]);
    const wider = (await list("priya", { from: T1.toISOString(), to: T3.toISOString() })).events;
    expect(wider.map((e) => e.targetId)).toEqual([languageProject, visionProject]);

    const page1 = (await list("priya", { limit: 2 })).events;
    const page2 = (await list("priya", { limit: 2, before: page1.at(-1)!.seq })).events;
    expect(page1).toHaveLength(2);
    expect(page2[0]!.seq).toBeLessThan(page1.at(-1)!.seq);
  });

  it("shows a tenant admin only their own tenant's events, and only when asked for it", async () => {
    expect((await appErrorOf(list("alex"))).code).toBe("not_found");
    const own = await list("alex", { tenant: "vision-lab", limit: 5000 });
    expect(own.scope).toBe("tenant");
    expect(own.canVerify).toBe(false);
    expect(own.events.length).toBeGreaterThan(0);
    expect(own.events.every((e) => e.tenantSlug === "vision-lab")).toBe(true);
    // Filters narrow within the tenant; they never widen beyond it.
    const boId = ctx.bo.actor.principalId;
    expect((await list("priya", { actor: boId, limit: 5000 })).events.map((e) => e.targetId)).toContain(languageProject);
    expect((await list("alex", { tenant: "vision-lab", actor: boId, limit: 5000 })).events).toEqual([]);

    expect((await appErrorOf(list("alex", { tenant: "language-models" }))).code).toBe("not_found");
    expect((await appErrorOf(list("alex", { tenant: "no-such-tenant" }))).code).toBe("not_found");
    expect((await list("bo", { tenant: "language-models", limit: 5000 })).events.every((e) => e.tenantSlug === "language-models")).toBe(true);
  });

  it("shows members, viewers, collaborators and service accounts nothing", async () => {
    const attempts: [Who, string | undefined][] = [
      ["dana", "vision-lab"],
      ["dana", undefined],
      ["vic", "language-models"],
      ["cleo", "language-models"],
      ["bot", "vision-lab"],
      ["bot", undefined],
    ];
    for (const [who, tenant] of attempts) {
      expect((await appErrorOf(list(who, tenant ? { tenant } : {}))).code, `${who} ${tenant}`).toBe("not_found");
    }
  });
});
