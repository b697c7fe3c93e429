import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/db/client";
import { scimTokens } from "@/db/schema";
import { hashApiToken } from "@/lib/auth/api-token";
import { parse } from "yaml";
import { startStandInApiServer } from "@/test/kube-api/server";
import { DEMO_GRANTS } from "@/lib/demo/quota";

/** ALLOT_DEFAULT_PROJECT_QUOTA's default CPU (lib/config), which the CLI runs with. */
const STARTING_CPU_CORES = 4;

/**
 * The operator CLI as an operator runs it: a separate process on an embedded
 * database directory of its own, checked by what it prints and its exit code.
 */
const run = promisify(execFile);
/** The part of a rendered ClusterQueue (or any object) these checks read. */
interface RenderedQueue {
  spec: { fairSharing?: unknown; resourceGroups?: { flavors: { name: string; resources: Record<string, string>[] }[] }[] };
}
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "allot-cli-"));
const tsx = path.join(process.cwd(), "node_modules", ".bin", "tsx");

function allot(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return allotWith({}, ...args);
}

async function allotWith(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(tsx, ["--conditions=react-server", "cli/allot.ts", ...args], {
      env: { ...process.env, DATABASE_URL: "", ALLOT_DATA_DIR: path.join(dataDir, "db"), ...env },
      // One start took 61 s with 8 helpers sharing 2 cores (load 21); 12 s of it was CPU.
      timeout: 150_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const hasKubectl = (() => {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

// Each call starts a process and opens the database (seconds on a quiet machine, a minute on a busy 2-core one).
describe("operator CLI", { timeout: 600_000 }, () => {
  it("migrates, seeds once, and makes platform admins", async () => {
    expect((await allot("migrate")).stdout).toMatch(/Migrations applied/);
    expect((await allot("seed")).stdout).toMatch(/Demo data loaded/);
    expect((await allot("seed")).stdout).toMatch(/already loaded in the .*; nothing changed/);
    expect((await allot("create-admin", "Ops@Example.com")).stdout).toMatch(/ops@example.com is now a platform admin \(user created/);
    expect((await allot("create-admin", "ops@example.com")).stdout).toMatch(/already a platform admin/);
    const bad = await allot("create-admin", "not-an-email");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/Enter an email address/);
  });

  it("bootstraps a tenant service account and prints only its token", async () => {
    const created = await allot("create-service-account", "--tenant", "vision-lab", "--name", "ci-bot", "--project", "detector-training:viewer");
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/ci-bot created in vision-lab/);
    const minted = await allot("mint-token", "--tenant", "vision-lab", "--service-account", "ci-bot", "--expires-days", "30");
    expect(minted.code).toBe(0);
    expect(minted.stdout).toMatch(/^allot_[a-z0-9]{12}_[A-Za-z0-9_-]{43}\n$/);
  });

  it("bootstraps a platform-scoped service account", async () => {
    expect((await allot("create-service-account", "--platform", "--name", "platform-bot")).code).toBe(0);
    expect((await allot("mint-token", "--platform", "--service-account", "platform-bot", "--no-expiry")).stdout).toMatch(/^allot_\w{12}_/);
  });

  it("makes a SCIM token that always expires, prints only the token, stores only its hash, lists and revokes it", async () => {
    const missing = await allot("scim-token");
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--expires-days/);
    const tooLong = await allot("scim-token", "--expires-days", "366");
    expect(tooLong.code).not.toBe(0);
    expect(tooLong.stderr).toMatch(/--expires-days must be a whole number from 1 to 365/);
    const minted = await allot("scim-token", "--expires-days", "30");
    expect(minted.code).toBe(0);
    expect(minted.stdout).toMatch(/^scim_[a-z0-9]{12}_[A-Za-z0-9_-]{43}\n$/);
    const token = minted.stdout.trim();
    const prefix = token.split("_")[1]!;
    const handle = openDatabase({ kind: "pglite", dataDir: path.join(dataDir, "db") });
    try {
      const rows = await handle.db.select().from(scimTokens).where(eq(scimTokens.prefix, prefix));
      expect(rows).toHaveLength(1);
      expect(rows[0]!.hash).toBe(hashApiToken(token));
      expect(JSON.stringify(rows)).not.toContain(token.slice(`scim_${prefix}_`.length));
    } finally {
      await handle.close();
    }
    expect((await allot("scim-token", "--list")).stdout).toMatch(new RegExp(`${prefix}\\s+expires \\S+\\s+last used never\\s+active`));
    expect((await allot("scim-token", "--revoke", prefix)).stderr).toMatch(`SCIM token ${prefix} revoked.`);
    expect((await allot("scim-token", "--list")).stdout).toMatch(new RegExp(`${prefix}.*revoked `));
    expect((await allot("scim-token", "--revoke", prefix)).code).not.toBe(0);
  });

  it("renders every tenant's desired state to YAML: namespaces, cluster-scoped objects, one folder per namespace, a Kustomization", async () => {
    const out = path.join(dataDir, "render");
    const first = await allot("render", "--out", out);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Rendered \d+ objects to /);
    const folders = fs.readdirSync(out).sort();
    expect(folders).toEqual([
      ".allot-render",
      "00-namespaces",
      "20-language-models--chat-eval",
      "20-language-models--pretraining",
      "20-vision-lab--detector-training",
      "20-vision-lab--segmentation-research",
      "Kustomization",
    ]);
    expect(fs.readdirSync(path.join(out, "00-namespaces")).sort()).toEqual(folders.filter((f) => f.startsWith("20-")).map((f) => `${f.slice(3)}.yaml`));
    const resources = (parse(fs.readFileSync(path.join(out, "Kustomization"), "utf8")) as { resources: string[] }).resources;
    expect(resources[0]).toBe("00-namespaces/language-models--chat-eval.yaml");
    expect(resources.every((f) => fs.existsSync(path.join(out, f)))).toBe(true);
    const quota = fs.readFileSync(path.join(out, "20-vision-lab--detector-training", "resourcequota-project-quota.yaml"), "utf8");
    expect(quota).toMatch(/^---\napiVersion: v1\nkind: ResourceQuota\n/);
    // The platform's starting quota plus the demo grant that covers the demo usage.
    const detectorGrant = DEMO_GRANTS.find((g) => g.slug === "detector-training")!;
    expect(quota).toContain(`requests.cpu: "${STARTING_CPU_CORES + detectorGrant.cpuCores}"`);
    expect(quota).toContain(`requests.nvidia.com/gpu: "${detectorGrant.gpuCount}"`);
    // The bootstrapped ci-bot holds a viewer grant: its ServiceAccount and binding are there.
    expect(fs.readdirSync(path.join(out, "20-vision-lab--detector-training"))).toEqual(expect.arrayContaining(["serviceaccount-ci-bot.yaml"]));

    fs.writeFileSync(path.join(out, "20-vision-lab--detector-training", "stale.yaml"), "left over");
    expect((await allot("render", "--out", out)).code).toBe(0);
    expect(fs.existsSync(path.join(out, "20-vision-lab--detector-training", "stale.yaml"))).toBe(false);
    expect(fs.readFileSync(path.join(out, "20-vision-lab--detector-training", "resourcequota-project-quota.yaml"), "utf8")).toBe(quota);

    const foreign = path.join(dataDir, "not-a-render");
    fs.mkdirSync(foreign);
    fs.writeFileSync(path.join(foreign, "precious.txt"), "keep me");
    const refused = await allot("render", "--out", foreign);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/is not empty and holds no earlier render/);
    expect(fs.readFileSync(path.join(foreign, "precious.txt"), "utf8")).toBe("keep me");
  });

  it(`a render with Kueue applies to a fresh cluster in one pass, by kubectl apply -k and by kubectl apply --server-side -R -f (${hasKubectl ? "kubectl against the stand-in API server" : "kubectl not on PATH: the walk order is checked instead"})`, async () => {
    const out = path.join(dataDir, "render-kueue");
    expect((await allotWith({ ALLOT_KUEUE: "1" }, "render", "--out", out)).code).toBe(0);
    const files = (parse(fs.readFileSync(path.join(out, "Kustomization"), "utf8")) as { resources: string[] }).resources;
    const rendered = files.map((f) => parse(fs.readFileSync(path.join(out, f), "utf8")) as { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } });
    expect(rendered.some((o) => o.kind === "ClusterQueue")).toBe(true);
    // The demo's sharing story, as the cluster is told it: envelopes' cohorts, burst, lend limits, weight and the preemptible tier.
    const find = (kind: string, name: string, namespace?: string) => rendered.find((o) => o.kind === kind && o.metadata.name === name && o.metadata.namespace === namespace) as unknown as RenderedQueue | undefined;
    expect(find("Cohort", "tenant-vision-lab")).toMatchObject({ spec: { parentName: "allot" } });
    expect(find("WorkloadPriorityClass", "vision-lab-preemptible")).toMatchObject({ value: 100 });
    // One platform flavour per pool flavour, named from it alone; the dedicated tenant's pool gets its own, pinned to its nodes.
    expect(find("ResourceFlavor", "h100")).toMatchObject({ spec: { nodeLabels: { "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" }, tolerations: [{ key: "nvidia.com/gpu", effect: "NoSchedule" }] } });
    expect(find("ResourceFlavor", "vision-lab-h100")).toBeUndefined();
    expect(find("ResourceFlavor", "language-models-dedicated-h100")).toMatchObject({ spec: { nodeLabels: { "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3" } } });
    const h100Of = (q: RenderedQueue | undefined, flavor = "h100") => q?.spec.resourceGroups?.flatMap((g) => g.flavors).find((f) => f.name === flavor)?.resources[0];
    const burst = find("ClusterQueue", "vision-lab--detector-training.burst");
    expect(h100Of(burst)).toEqual({ name: "nvidia.com/gpu", nominalQuota: "0", borrowingLimit: "8" });
    expect(h100Of(find("ClusterQueue", "vision-lab--detector-training"))).toEqual({ name: "nvidia.com/gpu", nominalQuota: "8", borrowingLimit: "0" });
    const pretraining = rendered.find((o) => o.kind === "ClusterQueue" && o.metadata.name.endsWith("--pretraining")) as unknown as RenderedQueue;
    expect(pretraining.spec.fairSharing).toEqual({ weight: "2" });
    expect(h100Of(pretraining, "language-models-dedicated-h100")).toEqual({ name: "nvidia.com/gpu", nominalQuota: "16", borrowingLimit: "0", lendingLimit: "8" });
    expect(find("LocalQueue", "preemptible", "vision-lab--detector-training")).toMatchObject({ spec: { clusterQueue: "vision-lab--detector-training.burst" } });
    const key = (o: { kind: string; metadata: { name: string; namespace?: string } }) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;

    if (!hasKubectl) {
      // What kubectl apply -R -f would do: each namespaced object's Namespace comes earlier in the walk.
      const walked = files.map((f) => f.split("/")).sort((a, b) => (a.join("\0") < b.join("\0") ? -1 : 1));
      const seen = new Set<string>();
      for (const f of walked) {
        const o = rendered[files.indexOf(f.join("/"))]!;
        if (o.kind === "Namespace") seen.add(o.metadata.name);
        else if (o.metadata.namespace) expect(seen.has(o.metadata.namespace), key(o)).toBe(true);
      }
      return;
    }
    for (const how of [["-k", out], ["-R", "-f", out]]) {
      const api = await startStandInApiServer();
      try {
        const kubeconfig = path.join(dataDir, "empty-kubeconfig");
        fs.writeFileSync(kubeconfig, "");
        const { stdout } = await run("kubectl", ["--server", api.url, "--cache-dir", path.join(dataDir, "kube-cache"), "apply", "--server-side", "--validate=false", ...how], {
          env: { ...process.env, KUBECONFIG: kubeconfig },
          timeout: 60_000,
        });
        expect(stdout.trim().split("\n")).toHaveLength(rendered.length);
        const stored = new Set(api.objects().map((o) => key(o)));
        for (const o of rendered) expect(stored.has(key(o)), `${how.join(" ")}: ${key(o)}`).toBe(true);
      } finally {
        await api.close();
      }
    }
  });

  it("runs the reconcile worker once in record-only mode", async () => {
    const worker = await allotWith({ LOG_LEVEL: "info" }, "worker", "--once");
    expect(worker.code).toBe(0);
    // The worker logs on stderr (at info: test runs set LOG_LEVEL=warn), as JSON when it is not a terminal.
    expect(worker.stderr).toMatch(/"level":"info".*"msg":"reconcile worker cli@[^"]+: record-only \(no cluster connected\)\."/);
    expect(worker.stdout).toMatch(/^Processed [1-9]\d* changes\.$/m);
    // Each change it recorded has its line, naming it; stdout holds only the command's own output.
    expect(worker.stderr).toMatch(/"changeId":\d+,.*"msg":"change recorded"/);
    expect(worker.stdout).not.toMatch(/^\{/m);
    expect((await allot("worker", "--once")).stdout).toMatch(/^Processed 0 changes\.$/m);
    expect((await allot("reconcile-all")).stdout).toMatch(/Queued a reconcile of 3 tenants/);
    expect((await allot("worker", "--once")).stdout).toMatch(/^Processed [1-9]\d* changes\.$/m);
  });

  it("refuses unclear requests with a usage message and a failing exit code", async () => {
    const noExpiry = await allot("mint-token", "--tenant", "vision-lab", "--service-account", "ci-bot");
    expect(noExpiry.code).not.toBe(0);
    expect(noExpiry.stdout).toBe("");
    expect(noExpiry.stderr).toMatch(/--expires-days <n>, or --no-expiry/);
    // Days are plain digits: Number() alone would mint a 16-day token for "0x10" and a 10-day one for "1e1".
    for (const days of ["0x10", "1e1", "1.5", " 4 ", "+4", "4abc", "Infinity", ""]) {
      const refused = await allot("mint-token", "--tenant", "vision-lab", "--service-account", "ci-bot", "--expires-days", days);
      expect(refused.code, days).not.toBe(0);
      expect(refused.stdout, days).toBe("");
      expect(refused.stderr, days).toMatch(/--expires-days must be a whole number from 1 to 365/);
    }
    const bothScopes = await allot("create-service-account", "--tenant", "vision-lab", "--platform", "--name", "x-bot");
    expect(bothScopes.stderr).toMatch(/exactly one of --tenant <slug> or --platform/);
    const duplicate = await allot("create-service-account", "--tenant", "vision-lab", "--name", "ci-bot");
    expect(duplicate.stderr).toMatch(/already exists/);
    const unknown = await allot("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown command "frobnicate"/);
  });

  it("verifies the audit chain it has been writing", async () => {
    const verified = await allot("verify-audit");
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/Hash chain intact: \d+ events verified/);
  });

  it("makes a checkpoint key, signs the head, and tells when the newest events are then deleted", async () => {
    const keys = path.join(dataDir, "keys");
    const made = await allot("audit-key", "--out", keys);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^Key [0-9a-f]{16}: private .*audit-checkpoint\.key/);
    expect(fs.statSync(path.join(keys, "audit-checkpoint.key")).mode & 0o077).toBe(0);
    expect((await allot("audit-key", "--out", keys)).stderr).toMatch(/exists already: a key is never overwritten/);

    const checkpoints = path.join(dataDir, "checkpoints");
    const env = { ALLOT_AUDIT_CHECKPOINT_KEY_FILE: path.join(keys, "audit-checkpoint.key"), ALLOT_AUDIT_CHECKPOINT_DIR: checkpoints };
    const unchecked = await allotWith({}, "verify-audit", "--require-checkpoint");
    expect(unchecked.code).toBe(1);
    expect(unchecked.stdout).toMatch(/The newest events cannot be checked: no checkpoint key is configured/);

    const signed = await allotWith(env, "audit-checkpoint");
    expect(signed.code).toBe(0);
    const line = JSON.parse(signed.stdout.trim()) as { event: string; checkpoint: { seq: number } };
    expect(line.event).toBe("audit.checkpoint");
    const head = line.checkpoint.seq;
    expect(signed.stderr).toMatch(new RegExp(`Checkpoint signed at event ${head} .*written to the log \\(above\\), ${checkpoints}/audit-checkpoint-0*${head}-`));
    const verified = await allotWith(env, "verify-audit", "--require-checkpoint");
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(new RegExp(`The log matches the newest checkpoint \\(event ${head}, signed `));

    // Someone with the table owner's rights removes the three newest events.
    const handle = openDatabase({ kind: "pglite", dataDir: path.join(dataDir, "db") });
    try {
      await handle.db.execute(sql`alter table audit_events disable trigger audit_events_append_only`);
      await handle.db.execute(sql`delete from audit_events where seq > ${head - 3}`);
      await handle.db.execute(sql`alter table audit_events enable trigger audit_events_append_only`);
    } finally {
      await handle.close();
    }
    const missing = await allotWith(env, "verify-audit");
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/Hash chain intact/);
    expect(missing.stderr).toMatch(new RegExp(`Events ${head - 2}–${head} are MISSING: the checkpoint of .* was signed at event ${head}, but the log ends at event ${head - 3}\\.`));
    // The checkpoint as the log stream carried it, with only the public key: the same finding.
    const logFile = path.join(dataDir, "portal.log");
    fs.writeFileSync(logFile, `${signed.stdout}`);
    const fromLog = await allotWith({}, "verify-audit", "--checkpoint", logFile, "--public-key", path.join(keys, "audit-checkpoint.pub"));
    expect(fromLog.code).toBe(1);
    expect(fromLog.stderr).toMatch(new RegExp(`Events ${head - 2}–${head} are MISSING`));
    expect((await allotWith(env, "audit-checkpoint")).stderr).toMatch(new RegExp(`Checkpoint refused: the log ends at event ${head - 3}, but the last checkpoint was signed at event ${head}`));
  });
});
