import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { clusterChanges, memberships, nodePools, projects, quotaGrants, tenantRequests, tenants, users } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { reconcileDue } from "@/lib/cluster/worker";
import { parseConfig } from "@/lib/config";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf, countOf, personaEmail } from "@/test/fixtures";
import { seededDatabase } from "@/test/tenancy";
import { approveTenantRequest, cancelTenantRequest, rejectTenantRequest, requestTenant } from "./commands/tenant-requests";

/** Onboarding by request: asked by anyone signed in, created whole by a platform admin's approval, with no restart. */
const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const GiB = 2 ** 30;
const seeded = seededDatabase(SEEDED_AT);
let db: Database;

beforeAll(async () => {
  db = seeded.db;
  await db.delete(nodePools).where(sql`true`);
  await db.insert(nodePools).values({ name: "l4", gpuModel: "L4", gpuResource: "nvidia.com/gpu", gpusPerNode: 4, nodeCount: 4, cpuPerNode: 48, memoryBytesPerNode: 192 * GiB });
});

const speech = {
  name: "Speech Lab",
  slug: "speech-lab",
  costCentre: "CC-4500",
  isolationTier: "shared",
  firstAdmins: "lead@speech.example, dana@vision.allot.demo",
  projectName: "Speech recognition",
  projectSlug: "asr",
  gpuModel: "L4",
  gpuCount: "2",
  cpuCores: "16",
  memory: "64",
  justification: "Training speech models for the call centre.",
};

describe(`tenant requests (${databaseLabel()})`, () => {
  it("anyone signed in asks; the same slug cannot be asked twice or taken", async () => {
    const dana = await contextOf(db, "data-scientist", NOW);
    const row = await executeCommand(requestTenant, dana, speech);
    expect(row).toMatchObject({ status: "pending", slug: "speech-lab", firstAdmins: ["lead@speech.example", personaEmail("data-scientist")], quota: { gpuModel: "L4", gpuCount: 2, cpuCores: 16, memoryBytes: 64 * GiB, storageBytes: 0 } });
    expect((await appErrorOf(executeCommand(requestTenant, dana, speech))).fields).toEqual({ slug: ["Choose another slug: a pending request already asks for this one."] });
    expect((await appErrorOf(executeCommand(requestTenant, dana, { ...speech, slug: "vision-lab" }))).fields).toEqual({ slug: ["Choose another slug: this one is taken."] });
    expect((await appErrorOf(executeCommand(requestTenant, dana, { ...speech, slug: "other", gpuModel: "B200" }))).fields).toEqual({ gpuModel: ["Choose a GPU model a node pool offers."] });
  });

  it("a platform admin's approval creates the tenant, its admins, its first project and quota, and reconciles them", async () => {
    const [pending] = await db.select().from(tenantRequests).where(eq(tenantRequests.slug, "speech-lab"));
    const row = await executeCommand(approveTenantRequest, await contextOf(db, "platform-admin", NOW), { requestId: pending!.id, version: pending!.version });
    expect(row).toMatchObject({ status: "approved" });
    const [tenant] = await db.select().from(tenants).where(eq(tenants.slug, "speech-lab"));
    expect(tenant).toMatchObject({ name: "Speech Lab", costCentre: "CC-4500", status: "active" });
    const admins = await db.select({ email: users.email, role: memberships.role }).from(memberships).innerJoin(users, eq(users.principalId, memberships.principalId)).where(eq(memberships.tenantId, tenant!.id));
    expect(admins.map((a) => a.email).sort()).toEqual(["dana@vision.allot.demo", "lead@speech.example"]);
    const [project] = await db.select().from(projects).where(eq(projects.tenantId, tenant!.id));
    expect(project).toMatchObject({ slug: "asr", namespace: "speech-lab--asr" });
    const [grant] = await db.select().from(quotaGrants).where(eq(quotaGrants.projectId, project!.id));
    expect(grant).toMatchObject({ gpuModel: "L4", gpuResource: "nvidia.com/gpu", gpuCount: 2, cpuCores: 16, endsAt: null });

    await reconcileDue({ db, settings: parseConfig({}).cluster, client: null, clock: () => NOW, workerId: "onboarding-test", baseBackoffMs: 0, maxBackoffMs: 0 });
    const changes = await db.select().from(clusterChanges).where(eq(clusterChanges.tenantId, tenant!.id));
    const objects = changes.find((c) => c.projectId === project!.id)!.objects!;
    const quota = objects.find((o) => o.kind === "ResourceQuota" && (o.metadata as { name: string }).name === "project-quota") as { spec: { hard: Record<string, string> } };
    expect(quota.spec.hard).toMatchObject({ "requests.cpu": "20", "requests.nvidia.com/gpu": "2" });
  });

  it("nobody approves their own request; rejections carry a reason; the requester may cancel while pending", async () => {
    const priya = await contextOf(db, "platform-admin", NOW);
    const own = await executeCommand(requestTenant, priya, { ...speech, slug: "ops-tools", gpuCount: "0" });
    expect((await appErrorOf(executeCommand(approveTenantRequest, priya, { requestId: own.id, version: own.version }))).message).toBe("You made this request; another platform admin must decide it.");
    expect((await appErrorOf(executeCommand(approveTenantRequest, await contextOf(db, "vision-admin", NOW), { requestId: own.id, version: own.version }))).code).toBe("forbidden");
    await executeCommand(cancelTenantRequest, priya, { requestId: own.id });

    const dana = await contextOf(db, "data-scientist", NOW);
    const asked = await executeCommand(requestTenant, dana, { ...speech, slug: "vision-two", gpuCount: "0" });
    const before = await countOf(db, "tenants");
    const rejected = await executeCommand(rejectTenantRequest, priya, { requestId: asked.id, version: asked.version, reason: "Use a project in Vision Lab instead." });
    expect(rejected).toMatchObject({ status: "rejected", decisionNote: "Use a project in Vision Lab instead." });
    expect(await countOf(db, "tenants")).toBe(before);
    expect((await appErrorOf(executeCommand(cancelTenantRequest, dana, { requestId: asked.id }))).code).toBe("conflict");
  });
});
