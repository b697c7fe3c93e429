import { and, asc, eq, inArray, isNull, lte } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { clusterChangeAttempts, clusterChanges, clusterObjects, clusterScheduledChanges, groupMappings, principals, projectGrants, serviceAccounts, tenants } from "@/db/schema";
import { executeCommand } from "@/lib/auth/command";
import { parseConfig } from "@/lib/config";
import { mapGroup, unmapGroup } from "@/lib/groups/commands";
import { archiveProject } from "@/lib/tenancy/commands/projects";
import { setTenantClusterSettings } from "@/lib/tenancy/commands/tenant-cluster-settings";
import { createServiceAccountAsOperator } from "@/lib/tenancy/operator";
import { grantProjectRole, revokeProjectGrant } from "@/lib/tenancy/commands/project-access";
import { deleteServiceAccount, setServiceAccountDisabled } from "@/lib/tenancy/commands/service-accounts";
import { databaseLabel } from "@/test/database";
import { appErrorOf, contextOf, personaEmail, principalIdOf, rejectionOf } from "@/test/fixtures";
import { DAY, projectIdOf, seededDatabase } from "@/test/tenancy";
import { enqueueClusterChange, enqueueProjectChange, projectTarget } from "./outbox";
import { enqueueDueScheduledChanges } from "./scheduled-scan";
import { claimDueChanges, reconcileDue, type ReconcilerOptions } from "./worker";

/**
 * The outbox and the worker in record-only mode (no cluster connected): every
 * desired-state change becomes a recorded plan of validated objects.
 */
const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-02T12:00:00.000Z");
const settings = parseConfig({}).cluster;

const seeded = seededDatabase(SEEDED_AT);
let db: Database;
let clockAt = NOW;
const clock = () => clockAt;

beforeAll(() => {
  db = seeded.db;
});

const worker = (id: string, extra: Partial<ReconcilerOptions> = {}): ReconcilerOptions => ({ db, settings, client: null, clock, workerId: id, ...extra });

/** A project's recorded objects, found by its namespace (the Namespace object itself is cluster-scoped). */
async function objectsOf(namespace: string) {
  const [tenant, project] = namespace.split("--") as [string, string];
  const projectId = await projectIdOf(db, tenant, project);
  return db.select().from(clusterObjects).where(eq(clusterObjects.projectId, projectId)).orderBy(asc(clusterObjects.kind), asc(clusterObjects.name));
}
async function changesOf(projectId: string) {
  return db.select().from(clusterChanges).where(eq(clusterChanges.targetKey, projectTarget(projectId))).orderBy(asc(clusterChanges.id));
}
const bindingSubjects = (rows: Awaited<ReturnType<typeof objectsOf>>) =>
  rows
    .filter((r) => r.kind === "RoleBinding")
    .map((r) => {
      const m = r.manifest as { roleRef: { name: string }; subjects: { name: string }[] };
      return `${m.roleRef.name}:${m.subjects[0]!.name}`;
    })
    .sort();

describe(`outbox and worker, record-only (${databaseLabel()})`, () => {
  it("the seed queued one change per project, and the worker records each as a validated plan", async () => {
    const pending = await db.select().from(clusterChanges).where(eq(clusterChanges.status, "pending"));
    expect(pending).toHaveLength(4); // four seeded projects; Kueue is off, so no tenant-wide changes

    expect(await reconcileDue(worker("w1"))).toBe(4);

    const changes = await db.select().from(clusterChanges).where(inArray(clusterChanges.id, pending.map((c) => c.id)));
    expect(changes.map((c) => [c.status, c.mode, c.attempts])).toEqual(Array(4).fill(["recorded", "record-only", 1]));
    const detector = await objectsOf("vision-lab--detector-training");
    expect(detector.every((o) => o.status === "planned")).toBe(true);
    expect(detector.map((o) => o.kind)).toEqual(expect.arrayContaining(["Namespace", "ResourceQuota", "LimitRange", "NetworkPolicy", "RoleBinding"]));
    // The tenant admin gets admin, the data scientist's grant gives edit.
    expect(bindingSubjects(detector)).toEqual([`admin:${personaEmail("vision-admin")}`, `edit:${personaEmail("data-scientist")}`]);
    const quota = detector.find((o) => o.kind === "ResourceQuota" && o.name === "project-quota")!.manifest as { spec: { hard: Record<string, string> } };
    expect(quota.spec.hard).toMatchObject({ "requests.cpu": "4", "requests.memory": "16Gi", "requests.storage": "100Gi", persistentvolumeclaims: "10" });
    // Every attempt is logged with its outcome.
    const attempts = await db.select().from(clusterChangeAttempts);
    expect(attempts.map((a) => a.outcome)).toEqual(Array(4).fill("recorded"));
  });

  it("a grant enqueues its change in the same transaction; a refused grant enqueues nothing", async () => {
    const projectId = await projectIdOf(db, "vision-lab", "segmentation-research");
    const before = (await changesOf(projectId)).length;
    const admin = await contextOf(db, "vision-admin", NOW);
    const outsider = await principalIdOf(db, personaEmail("viewer")); // a member of another tenant
    await appErrorOf(executeCommand(grantProjectRole, admin, { tenant: "vision-lab", project: "segmentation-research", principalId: outsider, role: "member" }));
    expect(await changesOf(projectId)).toHaveLength(before);

    const scientist = await principalIdOf(db, personaEmail("data-scientist"));
    await executeCommand(grantProjectRole, admin, { tenant: "vision-lab", project: "segmentation-research", principalId: scientist, role: "viewer" });
    const after = await changesOf(projectId);
    expect(after).toHaveLength(before + 1);
    expect(after.at(-1)).toMatchObject({ status: "pending", reasons: ["project role granted"] });
  });

  it("a transaction that fails after enqueuing leaves no change behind", async () => {
    const projectId = await projectIdOf(db, "vision-lab", "detector-training");
    const before = (await changesOf(projectId)).length;
    await rejectionOf(
      db.transaction(async (tx) => {
        await enqueueClusterChange(tx, { tenantId: seeded.tenantId["vision-lab"]!, projectId, reason: "doomed", at: NOW });
        throw new Error("the desired-state write failed");
      }),
    );
    expect(await changesOf(projectId)).toHaveLength(before);
  });

  it("coalesces changes that wait for the same target into one, keeping every reason", async () => {
    const projectId = await projectIdOf(db, "vision-lab", "segmentation-research");
    const admin = await contextOf(db, "vision-admin", NOW);
    const scientist = await principalIdOf(db, personaEmail("data-scientist"));
    await executeCommand(grantProjectRole, admin, { tenant: "vision-lab", project: "segmentation-research", principalId: scientist, role: "member" });
    const pending = (await changesOf(projectId)).filter((c) => c.status === "pending");
    expect(pending).toHaveLength(1);
    expect(pending[0]!.reasons).toEqual(["project role granted", "project role changed"]);

    await reconcileDue(worker("w1"));
    expect(bindingSubjects(await objectsOf("vision-lab--segmentation-research"))).toEqual([`admin:${personaEmail("vision-admin")}`, `edit:${personaEmail("data-scientist")}`]);
  });

  it("a revoked grant's RoleBinding leaves the plan, and the change lists it as a deletion", async () => {
    const projectId = await projectIdOf(db, "vision-lab", "segmentation-research");
    const admin = await contextOf(db, "vision-admin", NOW);
    const scientist = await principalIdOf(db, personaEmail("data-scientist"));
    const [grant] = await db.select().from(projectGrants).where(and(eq(projectGrants.projectId, projectId), eq(projectGrants.principalId, scientist)));
    await executeCommand(revokeProjectGrant, admin, { tenant: "vision-lab", project: "segmentation-research", grantId: grant!.id });
    await reconcileDue(worker("w1"));

    expect(bindingSubjects(await objectsOf("vision-lab--segmentation-research"))).toEqual([`admin:${personaEmail("vision-admin")}`]);
    const last = (await changesOf(projectId)).at(-1)!;
    expect(last.status).toBe("recorded");
    expect(last.deletions).toEqual([expect.objectContaining({ kind: "RoleBinding", namespace: "vision-lab--segmentation-research" })]);
    expect(last.deletions![0]!.name).toMatch(/^edit-user-/);
  });

  it("a group mapping binds the IdP group itself (tenant-wide on every project, a project's on that one) and its removal unbinds it", async () => {
    const admin = await contextOf(db, "vision-admin", NOW);
    const detectorId = await projectIdOf(db, "vision-lab", "detector-training");
    const before = (await changesOf(detectorId)).length;
    await executeCommand(mapGroup, admin, { tenant: "vision-lab", group: "Vision Readers", project: "", role: "viewer" });
    await executeCommand(mapGroup, admin, { tenant: "vision-lab", group: "Detector Team", project: "detector-training", role: "member" });
    expect((await changesOf(detectorId)).slice(before).flatMap((c) => c.reasons)).toEqual(["group mapping added", "group mapping added"]);
    // The API server's --oidc-groups-prefix is prepended, as for users.
    await reconcileDue(worker("w1", { settings: { ...settings, groupPrefix: "oidc:" } }));

    const detector = await objectsOf("vision-lab--detector-training");
    expect(bindingSubjects(detector)).toEqual([`admin:${personaEmail("vision-admin")}`, `edit:${personaEmail("data-scientist")}`, "edit:oidc:Detector Team", "view:oidc:Vision Readers"]);
    const groupBinding = detector.find((o) => o.kind === "RoleBinding" && o.name.startsWith("edit-group-"))!.manifest as { subjects: unknown[] };
    expect(groupBinding.subjects).toEqual([{ kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "oidc:Detector Team" }]);
    // The tenant-wide mapping reaches the tenant's other projects; the project mapping does not.
    expect(bindingSubjects(await objectsOf("vision-lab--segmentation-research"))).toContain("view:oidc:Vision Readers");
    expect(bindingSubjects(await objectsOf("vision-lab--segmentation-research"))).not.toContain("edit:oidc:Detector Team");

    const [mapping] = await db.select().from(groupMappings).where(eq(groupMappings.projectId, detectorId));
    await executeCommand(unmapGroup, admin, { tenant: "vision-lab", mappingId: mapping!.id });
    await reconcileDue(worker("w1", { settings: { ...settings, groupPrefix: "oidc:" } }));
    expect(bindingSubjects(await objectsOf("vision-lab--detector-training"))).not.toContain("edit:oidc:Detector Team");
    const deletions = (await changesOf(detectorId)).at(-1)!.deletions!;
    expect(deletions.map((d) => d.kind)).toEqual(["RoleBinding"]);
    expect(deletions[0]!.name).toMatch(/^edit-group-oidc-detector-team-/);
  });

  it("an archived project keeps its namespace but admits no work and binds nobody", async () => {
    const admin = await contextOf(db, "vision-admin", NOW);
    await executeCommand(archiveProject, admin, { tenant: "vision-lab", project: "segmentation-research" });
    await reconcileDue(worker("w1"));
    const objects = await objectsOf("vision-lab--segmentation-research");
    expect(objects.map((o) => o.kind)).toContain("Namespace");
    expect(objects.filter((o) => o.kind === "RoleBinding")).toEqual([]);
    const quota = objects.find((o) => o.name === "project-quota")!.manifest as { spec: { hard: Record<string, string> } };
    expect(quota.spec.hard).toMatchObject({ "requests.cpu": "0", "requests.memory": "0", pods: "0" });
  });

  it("a collaborator's access leaves the cluster when it expires: the seed scheduled the change for that instant", async () => {
    const projectId = await projectIdOf(db, "language-models", "chat-eval");
    const expiry = new Date(SEEDED_AT.getTime() + 60 * DAY);
    const scheduled = await db.select().from(clusterScheduledChanges).where(eq(clusterScheduledChanges.targetKey, projectTarget(projectId)));
    expect(scheduled.map((s) => [s.dueAt, s.reason, s.enqueuedAt])).toEqual([[expiry, "access expires", null]]);
    // Nothing waits in the outbox itself: a change asked for now could not pull the expiry forward or swallow it.
    expect((await changesOf(projectId)).filter((c) => c.status === "pending")).toEqual([]);
    expect(bindingSubjects(await objectsOf("language-models--chat-eval"))).toContain(`edit:${personaEmail("collaborator")}`);

    expect(await enqueueDueScheduledChanges(db, clockAt)).toBe(0); // not due yet
    clockAt = new Date(expiry.getTime() + 1000);
    try {
      expect(await enqueueDueScheduledChanges(db, clockAt)).toBe(1);
      expect(await reconcileDue(worker("w1"))).toBe(1);
      expect(bindingSubjects(await objectsOf("language-models--chat-eval"))).toEqual([`admin:${personaEmail("language-admin")}`, `view:${personaEmail("viewer")}`]);
    } finally {
      clockAt = NOW;
    }
  });

  it("moving a grant's expiry moves its scheduled change; revoking the grant takes it out", async () => {
    const projectId = await projectIdOf(db, "vision-lab", "detector-training");
    const admin = await contextOf(db, "vision-admin", NOW);
    const scientist = await principalIdOf(db, personaEmail("data-scientist"));
    const first = new Date(NOW.getTime() + 5 * DAY);
    const later = new Date(NOW.getTime() + 9 * DAY);
    const waiting = async () => (await db.select().from(clusterScheduledChanges).where(and(eq(clusterScheduledChanges.targetKey, projectTarget(projectId)), isNull(clusterScheduledChanges.enqueuedAt)))).map((s) => s.dueAt);
    await db.update(projectGrants).set({ expiresAt: first }).where(and(eq(projectGrants.projectId, projectId), eq(projectGrants.principalId, scientist)));
    await enqueueProjectChange(db, { tenantId: seeded.tenantId["vision-lab"]!, projectId, reason: "test: expiry set", at: NOW });
    expect(await waiting()).toEqual([first]);
    await db.update(projectGrants).set({ expiresAt: later }).where(and(eq(projectGrants.projectId, projectId), eq(projectGrants.principalId, scientist)));
    await enqueueProjectChange(db, { tenantId: seeded.tenantId["vision-lab"]!, projectId, reason: "test: expiry moved", at: NOW });
    expect(await waiting()).toEqual([later]);
    const [grant] = await db.select().from(projectGrants).where(and(eq(projectGrants.projectId, projectId), eq(projectGrants.principalId, scientist)));
    await executeCommand(revokeProjectGrant, admin, { tenant: "vision-lab", project: "detector-training", grantId: grant!.id });
    expect(await waiting()).toEqual([]);
    // Put the seeded grant back for the tests after this one.
    await executeCommand(grantProjectRole, admin, { tenant: "vision-lab", project: "detector-training", principalId: scientist, role: "member" });
    await reconcileDue(worker("w1"));
  });

  it("an object that fails validation fails its change with a message and is never recorded", async () => {
    // Bypass the command's name rules to make rendering produce an invalid ServiceAccount name.
    const projectId = await projectIdOf(db, "language-models", "pretraining");
    const tenantId = seeded.tenantId["language-models"]!;
    await db.transaction(async (tx) => {
      const [p] = await tx.insert(principals).values({ kind: "service_account", displayName: "Bad_Name" }).returning();
      await tx.insert(serviceAccounts).values({ principalId: p!.id, tenantId, name: "Bad_Name" });
      await tx.insert(projectGrants).values({ projectId, principalId: p!.id, role: "member" });
      await enqueueClusterChange(tx, { tenantId, projectId, reason: "test", at: NOW });
    });
    await reconcileDue(worker("w1"));
    const last = (await changesOf(projectId)).at(-1)!;
    expect(last.status).toBe("failed");
    expect(last.attempts).toBe(1);
    expect(last.lastError).toMatch(/invalid ServiceAccount Bad_Name/);
    expect(last.lastErrorReason).toBe("InvalidObject");
    expect((await objectsOf("language-models--pretraining")).some((o) => o.name === "Bad_Name")).toBe(false);
    await db.delete(principals).where(eq(principals.displayName, "Bad_Name"));
  });

  it("a change claimed by a worker that died is taken over once its lease lapses, and applied once", async () => {
    const projectId = await projectIdOf(db, "vision-lab", "detector-training");
    await enqueueClusterChange(db, { tenantId: seeded.tenantId["vision-lab"]!, projectId, reason: "crash test", at: NOW });
    const [claimed] = await claimDueChanges(worker("doomed", { leaseMs: 60_000 }));
    expect(claimed).toMatchObject({ status: "applying", claimedBy: "doomed", attempts: 1 });
    // The doomed worker never finishes. Inside its lease nobody else takes the target...
    expect(await reconcileDue(worker("w2", { leaseMs: 60_000 }))).toBe(0);
    // ...after it, the next worker does.
    clockAt = new Date(NOW.getTime() + 61_000);
    try {
      expect(await reconcileDue(worker("w2"))).toBe(1);
    } finally {
      clockAt = NOW;
    }
    const [done] = await db.select().from(clusterChanges).where(eq(clusterChanges.id, claimed!.id));
    expect(done).toMatchObject({ status: "recorded", attempts: 2, claimedBy: null });
  });

  it("two workers racing over the same queue process each change exactly once", async () => {
    const tenantId = seeded.tenantId["vision-lab"]!;
    const detector = await projectIdOf(db, "vision-lab", "detector-training");
    const chat = await projectIdOf(db, "language-models", "chat-eval");
    await enqueueClusterChange(db, { tenantId, projectId: detector, reason: "race", at: NOW });
    await enqueueClusterChange(db, { tenantId: seeded.tenantId["language-models"]!, projectId: chat, reason: "race", at: NOW });
    const due = await db.select({ id: clusterChanges.id }).from(clusterChanges).where(and(eq(clusterChanges.status, "pending"), lte(clusterChanges.nextAttemptAt, NOW)));
    expect(due).toHaveLength(2);
    const ids = due.map((c) => c.id);

    const [a, b] = await Promise.all([reconcileDue(worker("wa", { batchSize: 1 })), reconcileDue(worker("wb", { batchSize: 1 }))]);
    expect(a + b).toBe(2);
    const raced = await db.select().from(clusterChanges).where(inArray(clusterChanges.id, ids));
    expect(raced.map((c) => [c.status, c.attempts])).toEqual([
      ["recorded", 1],
      ["recorded", 1],
    ]);
    const attempts = await db.select().from(clusterChangeAttempts).where(inArray(clusterChangeAttempts.changeId, ids));
    expect(attempts).toHaveLength(2);
  });

  it("a tenant's workload identity template and runtime class reach its service accounts and namespaces", async () => {
    await createServiceAccountAsOperator(db, { tenant: "vision-lab", name: "trainer", description: "", projectRoles: [{ project: "detector-training", role: "member" }] }, NOW);
    const admin = await contextOf(db, "platform-admin", NOW);
    const [tenant] = await db.select().from(tenants).where(eq(tenants.slug, "vision-lab"));
    const refused = await appErrorOf(
      executeCommand(setTenantClusterSettings, admin, { tenant: "vision-lab", runtimeClass: "gVisor!", workloadIdentity: "role={account}", version: tenant!.version }),
    );
    expect(refused.fields).toEqual({
      runtimeClass: ["Enter a RuntimeClass name (lower-case letters, digits, - and .)."],
      workloadIdentity: ["Use {tenant}, {project}, {namespace} or {serviceAccount} on line 1: {account} is not a placeholder."],
    });
    await executeCommand(setTenantClusterSettings, admin, {
      tenant: "vision-lab",
      runtimeClass: "gvisor",
      workloadIdentity: "eks.amazonaws.com/role-arn=arn:aws:iam::123456789012:role/{tenant}-{serviceAccount}",
      version: tenant!.version,
    });
    await reconcileDue(worker("w1"));
    const objects = await objectsOf("vision-lab--detector-training");
    const account = objects.find((o) => o.kind === "ServiceAccount" && o.name === "trainer")!.manifest as { metadata: { annotations: Record<string, string> } };
    expect(account.metadata.annotations).toEqual({ "eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/vision-lab-trainer" });
    const namespace = objects.find((o) => o.kind === "Namespace")!.manifest as { metadata: { labels: Record<string, string> } };
    expect(namespace.metadata.labels["allot.dev/runtime-class"]).toBe("gvisor");
  });

  it("disabling or deleting a service account changes only the projects it holds a grant on, and takes its objects out of them", async () => {
    await createServiceAccountAsOperator(db, { tenant: "language-models", name: "evaluator", description: "", projectRoles: [{ project: "pretraining", role: "member" }] }, NOW);
    await reconcileDue(worker("w1"));
    const granted = await projectIdOf(db, "language-models", "pretraining");
    const other = await projectIdOf(db, "language-models", "chat-eval");
    const accountObjects = async () => (await objectsOf("language-models--pretraining")).filter((o) => o.name.includes("evaluator")).map((o) => o.kind).sort();
    expect(await accountObjects()).toEqual(["RoleBinding", "ServiceAccount"]);
    const admin = await contextOf(db, "language-admin", NOW);
    const changesBefore = { granted: (await changesOf(granted)).length, other: (await changesOf(other)).length };

    await executeCommand(setServiceAccountDisabled, admin, { tenant: "language-models", serviceAccount: "evaluator", disabled: "on" });
    expect((await changesOf(granted)).length).toBe(changesBefore.granted + 1);
    expect((await changesOf(other)).length).toBe(changesBefore.other);
    await reconcileDue(worker("w1"));
    expect(await accountObjects()).toEqual([]);

    await executeCommand(setServiceAccountDisabled, admin, { tenant: "language-models", serviceAccount: "evaluator", disabled: "" });
    await reconcileDue(worker("w1"));
    expect(await accountObjects()).toEqual(["RoleBinding", "ServiceAccount"]);

    await executeCommand(deleteServiceAccount, admin, { tenant: "language-models", serviceAccount: "evaluator" });
    expect((await changesOf(granted)).length).toBe(changesBefore.granted + 3);
    expect((await changesOf(other)).length).toBe(changesBefore.other);
    await reconcileDue(worker("w1"));
    expect(await accountObjects()).toEqual([]);
  });
});
