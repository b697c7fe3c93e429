/**
 * Operator CLI: `npm run allot -- <command>`. Uses the same configuration as
 * the portal (DATABASE_URL, or the embedded database under ALLOT_DATA_DIR; the
 * embedded one can only be opened while the portal is stopped).
 */
import { openDatabase } from "@/db/client";
import { DataDirLockedError } from "@/db/data-dir-lock";
import { runMigrations } from "@/db/migrate";
import { seedDemoData } from "@/db/seed";
import { seedDemoUsage } from "@/lib/demo/usage";
import fs from "node:fs";
import path from "node:path";
import { checkpointPublicKey, CheckpointKeyError, generateCheckpointKeyPair } from "@/lib/audit/checkpoint";
import { writeAuditCheckpoint } from "@/lib/audit/checkpoint-writer";
import { describeAuditVerification } from "@/lib/audit/describe-verification";
import { verifyAuditLog } from "@/lib/audit/verify-with-checkpoints";
import { adminEmail, grantPlatformAdmin } from "@/lib/auth/platform-admins";
import { systemClock } from "@/lib/clock";
import { parseArgs } from "node:util";
import { z, ZodError } from "zod";
import { AppError } from "@/lib/errors";
import { parseWholeText } from "@/lib/input/numbers";
import { listScimTokens, mintScimToken, revokeScimToken } from "@/lib/scim/token";
import { serviceAccountName } from "@/lib/tenancy/commands/service-accounts";
import { createServiceAccountAsOperator, mintTokenAsOperator } from "@/lib/tenancy/operator";
import { ConfigError, config } from "@/lib/config";
import { queueReconcileOfEverything } from "@/lib/cluster/commands";
import { renderAllToFiles, RenderDirectoryError, writeRender } from "@/lib/cluster/render-all";
import { clusterRuntime } from "@/lib/cluster/runtime";
import { CHANGE_SETTLED_HOOKS, startWorkerLoop, workerIdentity } from "@/lib/jobs/worker-loop";
import { enqueueDueScheduledChanges } from "@/lib/cluster/scheduled-scan";
import { reconcileDue } from "@/lib/cluster/worker";
import { configureLogger, log, logLine, logSettings } from "@/lib/observability/log";
import { serveMetrics } from "@/lib/observability/serve";
import { backfillPrometheusUsage, catchUpPrometheusUsage, describeUsageRun } from "@/lib/metering/prometheus-source";

const USAGE = `Usage: npm run allot -- <command>
       allot <command>        in the container image, where \`allot serve\` (its default) runs the portal

Commands:
  migrate                 apply database migrations
  seed                    load the demo tenants, projects, personas and 90 days of demo usage (once per database)
  create-admin <email>    make a user a platform admin (creates the user if needed)
  create-service-account  --tenant <slug> --name <name> [--description <text>] [--project <slug>:member|viewer ...]
                          --platform --name <name>   (platform-scoped, holds the platform admin role)
  mint-token              --tenant <slug> | --platform, --service-account <name>, --expires-days <n> | --no-expiry
                          prints only the token (use npm run -s to silence npm's own header)
  scim-token --expires-days <n>
                          make a bearer token for an identity provider's SCIM provisioning (/scim/v2),
                          valid 1 to 365 days; prints only the token
  scim-token --list       list SCIM tokens (id, prefix, expiry, last use, revoked)
  scim-token --revoke <id or prefix>
                          revoke a SCIM token at once
  verify-audit [--checkpoint <file> ...] [--public-key <file>] [--require-checkpoint]
                          check the audit log's hash chain, and its end against the newest signed checkpoint
                          (from ALLOT_AUDIT_CHECKPOINT_DIR, or the files given: checkpoint JSON or log lines);
                          exit 1 when events were changed or removed; with --require-checkpoint also when
                          no checkpoint could be checked
  audit-checkpoint        sign the audit chain's head now and send it where checkpoints go (log, directory, webhook)
  audit-key --out <dir>   make an Ed25519 key pair for checkpoints: <dir>/audit-checkpoint.key (private, mode 0600)
                          and <dir>/audit-checkpoint.pub (public, for verifying)
  render --out <dir>      write the desired state of every tenant as YAML for review or a GitOps repository:
                          00-namespaces/, 10-cluster/ (cluster-scoped), 20-<namespace>/ and a Kustomization,
                          so kubectl apply -k and kubectl apply --server-side -R -f both apply it in one pass
  worker [--once]         run the cluster reconcile worker (for scale-out, with ALLOT_CLUSTER_WORKER=0 on
                          the portal); --once processes what is due and exits
  reconcile-all           queue a reconcile of every tenant and project
  ingest-usage [--from <time> [--to <time>]]
                          read hourly usage from Prometheus (PROMETHEUS_URL): without flags, every complete hour
                          not read yet (as the worker does); with --from (and --to, default now), that range again,
                          replacing what was read for it; times are ISO 8601: 2026-12-01 or 2026-12-01T10:00:00Z
  help                    show this message`;

const DAY = 86_400_000;

function options(args: string[]) {
  return parseArgs({
    args,
    options: {
      tenant: { type: "string" },
      platform: { type: "boolean", default: false },
      name: { type: "string" },
      description: { type: "string", default: "" },
      project: { type: "string", multiple: true, default: [] },
      "service-account": { type: "string" },
      "expires-days": { type: "string" },
      "no-expiry": { type: "boolean", default: false },
      list: { type: "boolean", default: false },
      revoke: { type: "string" },
      out: { type: "string" },
      once: { type: "boolean", default: false },
      from: { type: "string" },
      to: { type: "string" },
      checkpoint: { type: "string", multiple: true, default: [] },
      "public-key": { type: "string" },
      "require-checkpoint": { type: "boolean", default: false },
    },
    strict: true,
  }).values;
}

function scopeOf(o: ReturnType<typeof options>): string | null {
  if (o.platform === Boolean(o.tenant)) throw new UsageError("give exactly one of --tenant <slug> or --platform");
  return o.tenant ?? null;
}

class UsageError extends Error {}

/** A date (midnight UTC) or a date and time with its offset. */
const isoInstant = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], { message: "times must be ISO 8601, e.g. 2026-12-01 or 2026-12-01T10:00:00Z" })
  .transform((s) => new Date(s.length === 10 ? `${s}T00:00:00Z` : s));

const isProjectRole = (role: string): role is "member" | "viewer" => role === "member" || role === "viewer";

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  // What the worker and the jobs log goes to stderr (JSON unless it is a terminal); stdout is each command's own output.
  configureLogger(logSettings(process.env, 2));
  if (!command || command === "help" || command === "--help") {
    console.log(USAGE);
    return command ? 0 : 1;
  }
  // Before the configuration is read: the key it would name may not exist yet.
  if (command === "audit-key") return writeCheckpointKeys(options(args).out);
  const c = config();
  const handle = openDatabase(c.database);
  const where = c.database.kind === "postgres" ? "PostgreSQL" : `embedded database in ${c.database.dataDir}`;
  try {
    switch (command) {
      case "migrate":
        await runMigrations(handle, c.database);
        console.log(`Migrations applied to the ${where}.`);
        return 0;
      case "seed": {
        await runMigrations(handle, c.database);
        const seeded = await seedDemoData(handle.db, systemClock());
        const usage = await seedDemoUsage(handle.db, systemClock());
        console.log(seeded ? `Demo data loaded into the ${where}.` : `Demo data was already loaded in the ${where}; nothing changed.`);
        if (usage) console.log("90 days of demo usage (marked as demo data) loaded.");
        return 0;
      }
      case "create-admin": {
        const email = args[0];
        if (!email) {
          console.error("create-admin needs an email address: npm run allot -- create-admin ops@example.com");
          return 2;
        }
        await runMigrations(handle, c.database);
        const result = await grantPlatformAdmin(handle.db, email, { principalId: null, label: "system:cli" }, systemClock());
        const who = adminEmail.parse(email);
        console.log(
          result.alreadyAdmin
            ? `${who} is already a platform admin.`
            : `${who} is now a platform admin${result.created ? " (user created; linked to their identity on first sign-in)" : ""}.`,
        );
        return 0;
      }
      case "create-service-account": {
        const o = options(args);
        const name = serviceAccountName.parse(o.name ?? "");
        const projectRoles = (o.project ?? []).map((spec) => {
          const [project, role = "member"] = spec.split(":");
          if (!project || !isProjectRole(role)) throw new UsageError(`--project ${spec}: expected <project-slug>:member or <project-slug>:viewer`);
          return { project, role };
        });
        await runMigrations(handle, c.database);
        const account = await createServiceAccountAsOperator(handle.db, { tenant: scopeOf(o), name, description: o.description ?? "", projectRoles }, systemClock());
        console.error(`Service account ${account.name} created${o.platform ? " with the platform admin role" : ` in ${o.tenant}`}${projectRoles.length ? `, roles: ${o.project?.join(", ")}` : ""}.`);
        return 0;
      }
      case "mint-token": {
        const o = options(args);
        const name = o["service-account"];
        if (!name) throw new UsageError("--service-account <name> is required");
        // Plain digits only: Number() would read "0x10" as 16 and "1e2" as 100.
        const days = o["expires-days"] === undefined ? undefined : (parseWholeText(o["expires-days"]) ?? NaN);
        if (days === undefined && !o["no-expiry"]) throw new UsageError("give --expires-days <n>, or --no-expiry to confirm a token that never expires");
        if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 365)) throw new UsageError("--expires-days must be a whole number from 1 to 365");
        const now = systemClock();
        const minted = await mintTokenAsOperator(handle.db, scopeOf(o), name, days === undefined ? null : new Date(now.getTime() + days * DAY), now);
        console.log(minted.token);
        return 0;
      }
      case "scim-token": {
        const o = options(args);
        await runMigrations(handle, c.database);
        const now = systemClock();
        if (o.revoke !== undefined) {
          const revoked = await revokeScimToken(handle.db, o.revoke, now);
          console.error(`SCIM token ${revoked.prefix} revoked.`);
          return 0;
        }
        if (o.list) {
          for (const t of await listScimTokens(handle.db)) {
            const state = t.revokedAt ? `revoked ${t.revokedAt.toISOString()}` : t.expiresAt <= now ? "expired" : "active";
            console.log(`${t.id}  ${t.prefix}  expires ${t.expiresAt.toISOString()}  last used ${t.lastUsedAt?.toISOString() ?? "never"}  ${state}`);
          }
          return 0;
        }
        if (o["expires-days"] === undefined) throw new UsageError("give --expires-days <n> (1 to 365): a SCIM token can disable anyone, so it always expires");
        const minted = await mintScimToken(handle.db, parseWholeText(o["expires-days"]) ?? NaN, now);
        console.log(minted.token);
        return 0;
      }
      case "verify-audit": {
        const o = options(args);
        const publicKey = o["public-key"] ? publicKeyFromFlag(o["public-key"]) : c.auditCheckpoints.publicKey;
        const files = o.checkpoint ?? [];
        for (const f of files) if (!fs.existsSync(f)) throw new UsageError(`--checkpoint ${f}: no such file`);
        const result = describeAuditVerification(await verifyAuditLog(handle.db, { publicKey, dir: c.auditCheckpoints.dir, files }));
        // Findings on stderr, the rest (what holds) on stdout, so a script can tell them apart.
        for (const line of result.lines) (result.findings.includes(line) ? console.error : console.log)(line);
        return result.status === "failed" || (result.status === "unchecked" && o["require-checkpoint"]) ? 1 : 0;
      }
      case "audit-checkpoint": {
        if (!c.auditCheckpoints.signing) throw new UsageError("audit-checkpoint needs ALLOT_AUDIT_CHECKPOINT_KEY_FILE (or ALLOT_AUDIT_CHECKPOINT_KEY): make one with `allot audit-key --out <dir>`");
        const result = await writeAuditCheckpoint(handle.db, c.auditCheckpoints, { now: systemClock(), force: true, out: (line) => console.log(line) });
        if (!result.written) {
          console.error(result.reason === "empty" ? "The audit log is empty: nothing to checkpoint." : `Checkpoint refused: ${result.reason === "refused" ? result.detail : result.reason}.`);
          return result.reason === "empty" ? 0 : 1;
        }
        const places = [result.logged ? "the log (above)" : null, result.file ? result.file.path : null, c.auditCheckpoints.webhook ? "the webhook" : null].filter(Boolean);
        console.error(`Checkpoint signed at event ${result.checkpoint.seq} (key ${result.checkpoint.keyId}), written to ${places.join(", ")}.`);
        const webhook = await result.webhook;
        if (webhook && !webhook.delivered) {
          console.error(`The webhook did not take it after ${webhook.attempts} attempts: ${webhook.error}.`);
          return 1;
        }
        return 0;
      }
      case "render": {
        const o = options(args);
        if (!o.out) throw new UsageError("render needs --out <dir>");
        await runMigrations(handle, c.database);
        const { files, objects } = await renderAllToFiles(handle.db, c.cluster, systemClock());
        await writeRender(o.out, files);
        console.log(`Rendered ${objects} objects to ${o.out} (kubectl apply -k ${o.out}, or kubectl apply --server-side -R -f ${o.out}).`);
        return 0;
      }
      case "worker": {
        const o = options(args);
        await runMigrations(handle, c.database);
        const runtime = clusterRuntime(c.cluster);
        const reconciler = { db: handle.db, settings: c.cluster, client: runtime.client, clock: systemClock, workerId: workerIdentity("cli"), afterSettled: CHANGE_SETTLED_HOOKS };
        log().info(`reconcile worker ${reconciler.workerId}: ${runtime.mode === "live" ? `live, API server ${runtime.server}` : "record-only (no cluster connected)"}.`);
        if (o.once) {
          const scheduled = await enqueueDueScheduledChanges(handle.db, systemClock());
          if (scheduled > 0) console.log(`Enqueued ${scheduled} scheduled changes that were due.`);
          console.log(`Processed ${await reconcileDue(reconciler)} changes.`);
          return 0;
        }
        // allot_leader follows the leadership lease from the first pass on (startWorkerLoop).
        await serveMetrics(c.metricsPort, () => handle, systemClock, logLine);
        const loop = startWorkerLoop({ ...reconciler, auditCheckpoints: c.auditCheckpoints });
        // The loop's timers and the metrics server are unref'd (so the portal and tests can exit):
        // without this a replica that is not the leader and finds nothing due exited quietly with 0.
        const keepAlive = setInterval(() => undefined, 60_000);
        await new Promise<void>((resolve) => {
          for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
        });
        clearInterval(keepAlive);
        log().info("stopping after the current pass");
        await loop.stop();
        return 0;
      }
      case "reconcile-all": {
        await runMigrations(handle, c.database);
        const result = await queueReconcileOfEverything(handle.db, systemClock());
        console.log(`Queued a reconcile of ${result.tenants} tenants and their projects.`);
        return 0;
      }
      case "ingest-usage": {
        const o = options(args);
        const prometheus = c.cluster.prometheus;
        if (!prometheus) throw new UsageError("ingest-usage needs PROMETHEUS_URL: the Prometheus that scrapes kube-state-metrics, cAdvisor and dcgm-exporter");
        if (o.to !== undefined && o.from === undefined) throw new UsageError("--to needs --from");
        const now = systemClock();
        const range = o.from === undefined ? null : { from: isoInstant.parse(o.from), to: o.to === undefined ? now : isoInstant.parse(o.to) };
        if (range && range.from >= range.to) throw new UsageError("--from must be before --to");
        await runMigrations(handle, c.database);
        const summary = range
          ? await backfillPrometheusUsage(handle.db, prometheus, range, now)
          : await catchUpPrometheusUsage(handle.db, prometheus, now, { maxHours: Number.POSITIVE_INFINITY });
        console.log(describeUsageRun(summary));
        return summary.error ? 1 : 0;
      }
      default:
        console.error(`Unknown command "${command}".\n\n${USAGE}`);
        return 2;
    }
  } finally {
    await handle.close();
  }
}

function publicKeyFromFlag(file: string) {
  try {
    return checkpointPublicKey(fs.readFileSync(file, "utf8"));
  } catch (error) {
    if (error instanceof CheckpointKeyError) throw new UsageError(`--public-key ${file} ${error.message}`);
    throw new UsageError(`--public-key ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

function writeCheckpointKeys(out: string | undefined): number {
  if (!out) throw new UsageError("audit-key needs --out <dir>");
  const privateFile = path.join(out, "audit-checkpoint.key");
  const publicFile = path.join(out, "audit-checkpoint.pub");
  for (const f of [privateFile, publicFile]) if (fs.existsSync(f)) throw new UsageError(`${f} exists already: a key is never overwritten (checkpoints signed with it could no longer be checked)`);
  const pair = generateCheckpointKeyPair();
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(privateFile, pair.privatePem, { mode: 0o600, flag: "wx" });
  fs.writeFileSync(publicFile, pair.publicPem, { mode: 0o644, flag: "wx" });
  console.log(`Key ${pair.keyId}: private ${privateFile} (ALLOT_AUDIT_CHECKPOINT_KEY_FILE, keep it secret), public ${publicFile} (ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE, or verify-audit --public-key; keep a copy outside the cluster).`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) console.error(error.message);
    else if (error instanceof DataDirLockedError) console.error(error.message);
    else if (error instanceof UsageError) console.error(`${error.message}\n\n${USAGE}`);
    else if (error instanceof RenderDirectoryError) console.error(error.message);
    else if (error instanceof AppError) console.error(error.message);
    else if (error instanceof ZodError) console.error(`Invalid argument: ${error.issues.map((i) => i.message).join("; ")}`);
    else console.error(error);
    process.exit(1);
  },
);
