import { eq } from "drizzle-orm";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Database } from "@/db/client";
import { clusterChanges } from "@/db/schema";
import { seedDemoData } from "@/db/seed";
import type { CommandContext } from "@/lib/auth/context";
import { currentContext } from "@/lib/auth/current-actor";
import { clusterChangesPage } from "@/lib/cluster/queries";
import { reconcileDue } from "@/lib/cluster/worker";
import { config } from "@/lib/config";
import { databaseLabel, freshTestDatabase } from "@/test/database";
import { contextOf, type PersonaKey } from "@/test/fixtures";
import { GET as changeYaml } from "./admin/cluster/changes/[id]/yaml/route";
import { GET as projectYaml } from "./tenants/[tenant]/projects/[project]/cluster.yaml/route";

// The route handlers read the signed-in person through currentContext (next-auth
// cookies in a real request); here it answers with the persona under test.
vi.mock("@/lib/auth/current-actor", () => ({ currentContext: vi.fn(), currentActor: vi.fn() }));
// Plans only, whatever the machine running the tests has in KUBECONFIG.
process.env.ALLOT_CLUSTER_MODE = "record-only";

const SEEDED_AT = new Date("2026-12-01T08:00:00.000Z");
const NOW = new Date("2026-12-01T09:00:00.000Z");

let handle: Awaited<ReturnType<typeof freshTestDatabase>>;
let db: Database;

beforeAll(async () => {
  handle = await freshTestDatabase();
  db = handle.db;
  await seedDemoData(db, SEEDED_AT);
  // The worker renders the seeded changes, as the in-process worker does within a second of start.
  await reconcileDue({ db, settings: config().cluster, client: null, clock: () => NOW, workerId: "test-worker" });
});
afterAll(async () => {
  await handle?.close();
});

async function signedInAs(key: PersonaKey | null): Promise<void> {
  const ctx: CommandContext | null = key ? await contextOf(db, key, NOW) : null;
  vi.mocked(currentContext).mockResolvedValue(ctx);
}

const request = (path: string) => new Request(`http://localhost${path}`);

function getProjectYaml(tenant: string, project: string): Promise<Response> {
  return projectYaml(request(`/tenants/${tenant}/projects/${project}/cluster.yaml`), { params: Promise.resolve({ tenant, project }) });
}

function getChangeYaml(id: string): Promise<Response> {
  return changeYaml(request(`/admin/cluster/changes/${id}/yaml`), { params: Promise.resolve({ id }) });
}

function documents(text: string): Record<string, unknown>[] {
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) throw new Error("expected a YAML stream");
  for (const d of docs) expect(d.errors, "YAML parse errors").toEqual([]);
  return docs.map((d) => d.toJS() as Record<string, unknown>);
}

const kinds = (docs: Record<string, unknown>[]) => docs.map((d) => d.kind);
const metadataOf = (doc: Record<string, unknown>) => doc.metadata as { name: string; namespace?: string };

async function changeIdOf(namespace: string): Promise<number> {
  const change = (await clusterChangesPage(db, { limit: 1000 })).changes.find((c) => c.namespace === namespace);
  if (!change) throw new Error(`no change for ${namespace}`);
  return change.id;
}

describe(`project cluster YAML download (${databaseLabel()})`, () => {
  it("gives a project member every object of the project, in apply order, as an attachment named after the namespace", async () => {
    await signedInAs("data-scientist");
    const response = await getProjectYaml("vision-lab", "detector-training");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="vision-lab--detector-training.yaml"');
    expect(response.headers.get("cache-control")).toBe("no-store");

    const text = await response.text();
    expect(text).toMatch(/^# Allot: cluster objects of namespace vision-lab--detector-training \(tenant vision-lab, project detector-training\), in apply order\.\n# Mode: record-only/);
    // Keys in kubectl's order, not in the order jsonb keeps them.
    expect(text).toContain("\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: vision-lab--detector-training\n  annotations:\n");
    const docs = documents(text);
    expect(kinds(docs)[0]).toBe("Namespace");
    expect(metadataOf(docs[0]!).name).toBe("vision-lab--detector-training");
    expect(kinds(docs)).toEqual(expect.arrayContaining(["Namespace", "ResourceQuota", "LimitRange", "NetworkPolicy"]));
    for (const doc of docs.slice(1)) expect(metadataOf(doc).namespace, `${String(doc.kind)} ${metadataOf(doc).name}`).toBe("vision-lab--detector-training");
  });

  it("serves tenant viewers, tenant admins, collaborators and platform admins of the project too", async () => {
    for (const [key, tenant, project] of [
      ["viewer", "language-models", "chat-eval"],
      ["language-admin", "language-models", "pretraining"],
      ["collaborator", "language-models", "chat-eval"],
      ["platform-admin", "vision-lab", "segmentation-research"],
    ] as const) {
      await signedInAs(key);
      const response = await getProjectYaml(tenant, project);
      expect(response.status, `${key} on ${tenant}/${project}`).toBe(200);
      expect(kinds(documents(await response.text()))[0]).toBe("Namespace");
    }
  });

  it("answers 404, and nothing of the project, to another tenant's people, to members without a grant, and to a signed-out request", async () => {
    const refused: [PersonaKey | null, string, string][] = [
      ["language-admin", "vision-lab", "detector-training"],
      ["viewer", "vision-lab", "detector-training"],
      ["data-scientist", "language-models", "chat-eval"],
      ["data-scientist", "vision-lab", "segmentation-research"],
      ["collaborator", "language-models", "pretraining"],
      ["vision-admin", "language-models", "chat-eval"],
      [null, "vision-lab", "detector-training"],
      ["platform-admin", "vision-lab", "no-such-project"],
    ];
    for (const [key, tenant, project] of refused) {
      await signedInAs(key);
      const response = await getProjectYaml(tenant, project);
      expect(response.status, `${key ?? "signed out"} on ${tenant}/${project}`).toBe(404);
      const body = await response.text();
      expect(body).toBe("Not found");
      expect(response.headers.get("content-disposition")).toBeNull();
    }
  });
});

describe(`cluster change YAML download (${databaseLabel()})`, () => {
  it("gives a platform admin the change's objects under a header naming the change, its target and mode", async () => {
    const id = await changeIdOf("vision-lab--detector-training");
    await signedInAs("platform-admin");
    const response = await getChangeYaml(String(id));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="allot-change-${id}.yaml"`);
    const text = await response.text();
    expect(text.split("\n").slice(0, 6)).toEqual([
      `# Allot cluster change #${id}`,
      "# Target: vision-lab / vision-lab--detector-training",
      "# Mode: record-only (no cluster connected: a plan, not live objects)",
      "# Status: recorded, 1 attempt",
      "# Reasons: demo data seeded",
      "# Deletions: none",
    ]);
    expect(kinds(documents(text))).toEqual(expect.arrayContaining(["Namespace", "ResourceQuota", "LimitRange", "NetworkPolicy"]));
  });

  it("lists the change's deletions in the header", async () => {
    const id = await changeIdOf("language-models--pretraining");
    await db
      .update(clusterChanges)
      .set({ deletions: [{ apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", namespace: "language-models--pretraining", name: "allot-gone" }] })
      .where(eq(clusterChanges.id, id));
    await signedInAs("platform-admin");
    const text = await (await getChangeYaml(String(id))).text();
    expect(text).toContain("# Deletions (to delete):\n#   - rbac.authorization.k8s.io/v1 RoleBinding language-models--pretraining/allot-gone\n");
  });

  it("answers 404 to everyone who is not a platform admin, to a signed-out request, and for ids that are not changes", async () => {
    const id = String(await changeIdOf("vision-lab--detector-training"));
    for (const key of ["vision-admin", "language-admin", "data-scientist", "viewer", "collaborator", null] as const) {
      await signedInAs(key);
      const response = await getChangeYaml(id);
      expect(response.status, key ?? "signed out").toBe(404);
      expect(await response.text()).toBe("Not found");
    }
    await signedInAs("platform-admin");
    for (const bad of ["0", "-1", "abc", "1.5", "99999999", "1e3"]) {
      expect((await getChangeYaml(bad)).status, bad).toBe(404);
    }
  });
});
