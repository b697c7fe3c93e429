import fs from "node:fs";
import { createPublicKey as createPublicKeyOf, type KeyObject } from "node:crypto";
import { z } from "zod";
import { checkpointPrivateKey, checkpointPublicKey, checkpointKeyId, CheckpointKeyError } from "@/lib/audit/checkpoint";
import { renderConfig, type RenderConfig } from "@/lib/cluster/desired-state";
import { parseQuantity } from "@/lib/cluster/quantity";
import { logFormatSchema, logLevelSchema } from "@/lib/observability/log";

/**
 * All configuration, read once from the environment and validated. A bad value
 * stops start-up with a message naming the variable and what it accepts.
 */

const emailList = z
  .string()
  .transform((raw) =>
    raw
      .split(",")
      .map((e) => e.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.email({ message: "must be a comma-separated list of email addresses" })));

const flag = z.enum(["0", "1", "true", "false"], { message: "must be 0 or 1" }).transform((v) => v === "1" || v === "true");

const postgresUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\/.+/.test(v), { message: "must be a postgres:// or postgresql:// URL" });

const httpUrl = z.url({ protocol: /^https?$/, message: "must be an http:// or https:// URL" });

/** "key=value,key2=value2" as a label map; keys and values as Kubernetes labels allow. */
const labelMap = z
  .string()
  .transform((raw) => raw.split(",").map((pair) => pair.trim()).filter(Boolean))
  .pipe(
    z
      .array(z.string().regex(/^[A-Za-z0-9][-A-Za-z0-9_./]*=[-A-Za-z0-9_.]*$/, "must be a comma-separated list of key=value labels"))
      .min(1, "must name at least one label: an empty selector would match every namespace"),
  )
  .transform((pairs) => Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)])));

const nameList = z
  .string()
  .transform((raw) => raw.split(",").map((n) => n.trim()).filter(Boolean))
  .pipe(z.array(z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "must be a comma-separated list of Kubernetes names")));

const dnsLabel = z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a Kubernetes namespace name");

/** "cpu=4,memory=16Gi,storage=100Gi,pvcs=10": the quota every new project starts with. */
const projectQuota = z
  .string()
  .transform((raw, ctx) => {
    const quota = { cpuCores: 0, memoryBytes: 0, storageBytes: 0, pvcCount: 0 };
    const keys: Record<string, keyof typeof quota> = { cpu: "cpuCores", memory: "memoryBytes", storage: "storageBytes", pvcs: "pvcCount" };
    for (const pair of raw.split(",").map((p) => p.trim()).filter(Boolean)) {
      const [key, value = ""] = pair.split("=", 2).map((s) => s.trim());
      const field = keys[key!];
      const amount = parseQuantity(value);
      if (!field || amount === null) {
        ctx.addIssue({ code: "custom", message: `must be cpu=…,memory=…,storage=…,pvcs=… with Kubernetes quantities (bad part: "${pair}")` });
        return z.NEVER;
      }
      quota[field] = field === "cpuCores" ? amount : Math.round(amount);
    }
    return quota;
  });

const envSchema = z.object({
  // Read by lib/observability/log.ts itself (it logs this very check); validated here so a bad value stops start-up.
  LOG_LEVEL: logLevelSchema.optional(),
  LOG_FORMAT: logFormatSchema.optional(),
  DATABASE_URL: postgresUrl.optional(),
  ALLOT_DATA_DIR: z.string().min(1, "must not be empty").default(".data"),
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters (try: openssl rand -base64 32)").optional(),
  AUTH_URL: httpUrl.optional(),
  OIDC_ISSUER: httpUrl.optional(),
  OIDC_CLIENT_ID: z.string().min(1, "must not be empty").optional(),
  OIDC_CLIENT_SECRET: z.string().min(1, "must not be empty").optional(),
  OIDC_DISPLAY_NAME: z.string().min(1).default("Single sign-on"),
  ALLOT_DEMO: flag.optional(),
  ALLOT_PLATFORM_ADMINS: emailList.default([]),
  ALLOT_ADMIN_GROUP: z.string().min(1, "must not be empty").optional(),
  ALLOT_GROUPS_CLAIM: z.string().min(1, "must not be empty").default("groups"),
  ALLOT_SESSION_HOURS: z.coerce
    .number({ message: "must be a number of hours" })
    .int("must be a whole number of hours")
    .min(1, "must be at least 1")
    .max(24 * 30, "must be at most 720 (30 days)")
    .default(12),
  ALLOT_SESSION_RECHECK_MINUTES: z.coerce
    .number({ message: "must be a number of minutes" })
    .int("must be a whole number of minutes")
    .min(1, "must be at least 1")
    // Up to the longest session (ALLOT_SESSION_HOURS' maximum): beyond it the session ends anyway.
    .max(30 * 24 * 60, "must be at most 43200 (30 days)")
    .default(60),
  ALLOT_SHUTDOWN_DRAIN_SECONDS: z.coerce
    .number({ message: "must be a number of seconds" })
    .int("must be a whole number of seconds")
    .min(0, "must be 0 or more")
    .max(120, "must be at most 120")
    .default(3),
  ALLOT_MIGRATE_ON_START: flag.default(true),
  // Issuers are https; plain http only to a loopback issuer, for tests and local trials.
  ALLOT_FEDERATION_HTTP_LOOPBACK: flag.default(false),
  ALLOT_FEDERATION_TOKEN_MINUTES: z.coerce
    .number({ message: "must be a number of minutes" })
    .int("must be a whole number of minutes")
    .min(1, "must be at least 1")
    .max(60, "must be at most 60: exchanged tokens are meant to be short-lived")
    .default(15),
  ALLOT_MAX_COLLABORATOR_DAYS: z.coerce
    .number({ message: "must be a number of days" })
    .int("must be a whole number of days")
    .min(1, "must be at least 1")
    .max(365, "must be at most 365")
    .default(90),
  ALLOT_INVITATION_DAYS: z.coerce
    .number({ message: "must be a number of days" })
    .int("must be a whole number of days")
    .min(1, "must be at least 1")
    .max(30, "must be at most 30")
    .default(7),
  SMTP_URL: z
    .string()
    .refine((v) => /^smtps?:\/\/.+/.test(v), { message: "must be an smtp:// or smtps:// URL" })
    .optional(),
  SMTP_FROM: z.string().min(3, "must be a sender address, e.g. Allot <allot@example.com>").default("Allot <allot@localhost>"),
  ALLOT_TEST_CLOCK_FILE: z.string().min(1).optional(),
  ALLOT_CLUSTER_MODE: z.enum(["auto", "record-only"], { message: "must be auto or record-only" }).default("auto"),
  ALLOT_CLUSTER_WORKER: flag.default(true),
  ALLOT_CLUSTER_MAX_ATTEMPTS: z.coerce.number({ message: "must be a number" }).int("must be a whole number").min(1, "must be at least 1").max(100, "must be at most 100").default(8),
  ALLOT_DRIFT_INTERVAL_MINUTES: z.coerce.number({ message: "must be a number of minutes" }).int("must be a whole number").min(0, "must be 0 (off) or more").default(10),
  // Short enough that a dead replica's work is taken over soon; long enough that a busy database does not let a live one's lapse.
  ALLOT_CLUSTER_LEASE_SECONDS: z.coerce
    .number({ message: "must be a number of seconds" })
    .int("must be a whole number of seconds")
    .min(3, "must be at least 3 (the heartbeat renews every third of it)")
    .max(600, "must be at most 600")
    .default(30),
  ALLOT_LEADER_LEASE_SECONDS: z.coerce
    .number({ message: "must be a number of seconds" })
    .int("must be a whole number of seconds")
    .min(3, "must be at least 3 (the leader renews every third of it)")
    .max(600, "must be at most 600")
    .default(15),
  ALLOT_LABEL_PREFIX: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "must be a DNS subdomain such as allot.dev").default("allot.dev"),
  ALLOT_POD_SECURITY_VERSION: z.string().regex(/^(v1\.\d+|latest)$/, "must be a Kubernetes minor version such as v1.30").default("v1.30"),
  ALLOT_SHARED_SERVICES_SELECTOR: labelMap.optional(),
  ALLOT_GATEWAY_NAMESPACE: dnsLabel.optional(),
  ALLOT_MONITORING_NAMESPACE: dnsLabel.optional(),
  ALLOT_HIGH_PRIORITY_CLASSES: nameList.default([]),
  ALLOT_KUEUE: flag.default(false),
  ALLOT_KUEUE_API_VERSION: z.enum(["v1beta1", "v1beta2"], { message: "must be v1beta1 or v1beta2" }).default("v1beta2"),
  ALLOT_KUEUE_COHORT: dnsLabel.default("allot"),
  /** Kueue 0.13+ serves Cohort objects: each tenant gets one under ALLOT_KUEUE_COHORT. Off for older Kueue: project queues join ALLOT_KUEUE_COHORT directly. */
  ALLOT_KUEUE_COHORT_OBJECTS: flag.default(true),
  ALLOT_CLUSTER_USER_IDENTITY: z.enum(["email", "subject"], { message: "must be email or subject" }).default("email"),
  ALLOT_CLUSTER_USER_PREFIX: z.string().default(""),
  ALLOT_CLUSTER_GROUP_PREFIX: z.string().default(""),
  ALLOT_CURRENCY: z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 currency code such as USD or EUR").default("USD"),
  /** Idle capacity cost shown apart (default) or charged back to tenants by their guarantees, before the first change made in the portal. */
  ALLOT_IDLE_COST: z.enum(["apart", "chargeback"], { message: "must be apart or chargeback" }).default("apart"),
  ALLOT_GPU_IDLE_THRESHOLD: z.coerce
    .number({ message: "must be a fraction between 0 and 1 such as 0.2 (20%)" })
    .min(0, "must be a fraction between 0 and 1 such as 0.2 (20%)")
    .max(1, "must be a fraction between 0 and 1 such as 0.2 (20%), not a percentage")
    .default(0.2),
  ALLOT_GPU_IDLE_MIN_HOURS: z.coerce.number({ message: "must be a number of GPU-hours" }).min(0, "must be 0 or more").max(1_000_000, "must be at most 1000000").default(24),
  /** Months of usage kept before the current one; unset keeps everything (lib/metering/retention.ts). */
  ALLOT_USAGE_RETENTION_MONTHS: z.coerce
    .number({ message: "must be a whole number of months" })
    .int("must be a whole number of months")
    .min(1, "must be at least 1 (or unset to keep all usage)")
    .max(1200, "must be at most 1200 (or unset to keep all usage)")
    .optional(),
  ALLOT_DEFAULT_PROJECT_QUOTA: projectQuota.default({ cpuCores: 4, memoryBytes: 16 * 2 ** 30, storageBytes: 100 * 2 ** 30, pvcCount: 10 }),
  METRICS_PORT: z.coerce
    .number({ message: "must be a port number (0 turns /metrics off)" })
    .int("must be a whole port number")
    .min(0, "must be 0 (off) or a port from 1 to 65535")
    .max(65535, "must be 0 (off) or a port from 1 to 65535")
    .default(9464),
  ALLOT_AUDIT_CHECKPOINT_KEY_FILE: z.string().min(1).optional(),
  ALLOT_AUDIT_CHECKPOINT_KEY: z.string().min(1).optional(),
  ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE: z.string().min(1).optional(),
  ALLOT_AUDIT_CHECKPOINT_DIR: z.string().min(1).optional(),
  ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL: httpUrl.optional(),
  ALLOT_AUDIT_CHECKPOINT_WEBHOOK_SECRET: z.string().min(16, "must be at least 16 characters (try: openssl rand -hex 32)").optional(),
  ALLOT_AUDIT_CHECKPOINT_LOG: flag.default(true),
  ALLOT_AUDIT_CHECKPOINT_INTERVAL_MINUTES: z.coerce
    .number({ message: "must be a number of minutes" })
    .int("must be a whole number of minutes")
    .min(0, "must be 0 (only on demand) or more")
    .max(24 * 60, "must be at most 1440 (a day)")
    .default(5),
  PROMETHEUS_URL: httpUrl.optional(),
  PROMETHEUS_BACKFILL_DAYS: z.coerce.number({ message: "must be a number of days" }).int("must be a whole number of days").min(0, "must be 0 or more").max(365, "must be at most 365").default(7),
  PROMETHEUS_TIMEOUT_SECONDS: z.coerce.number({ message: "must be a number of seconds" }).int("must be a whole number of seconds").min(1, "must be at least 1").max(600, "must be at most 600").default(30),
});

export type AllotConfig = {
  database: { kind: "pglite"; dataDir: string } | { kind: "postgres"; url: string };
  authSecret: string | undefined;
  oidc: { issuer: string; clientId: string; clientSecret: string; displayName: string } | null;
  demoSignIn: boolean;
  platformAdminEmails: string[];
  adminGroup: string | undefined;
  groupsClaim: string;
  sessionHours: number;
  /** How old a session from the identity provider may be before its groups claim must be read again by signing in. */
  sessionRecheckMinutes: number;
  /** After SIGTERM, how long the server goes on answering with readiness false before it closes. */
  shutdownDrainSeconds: number;
  migrateOnStart: boolean;
  maxCollaboratorDays: number;
  invitationDays: number;
  /** Keyless automation (lib/federation): http allowed to loopback issuers, and how long an exchanged token lives. */
  federation: { httpLoopback: boolean; tokenMinutes: number };
  smtp: { url: string; from: string } | null;
  publicUrl: string | undefined;
  /** Tests only: a file holding a clock offset, so expiry can be tested without sleeping. */
  testClockFile: string | undefined;
  /** The one currency of the rate card and every cost shown. */
  currency: string;
  /** The idle cost rule before any change recorded in the portal (lib/metering/idle-mode.ts). */
  idleCostDefault: "apart" | "chargeback";
  /** When a project counts as holding GPUs it barely uses (lib/metering/gpu-efficiency.ts). */
  gpuIdle: GpuIdleSettings;
  /**
   * Whole months of usage kept before the current month (ALLOT_USAGE_RETENTION_MONTHS); older months'
   * partitions are dropped by the leader (lib/metering/retention.ts). null keeps everything.
   */
  usageRetentionMonths: number | null;
  cluster: ClusterSettings;
  /** The port of /metrics, apart from the portal's; null when METRICS_PORT=0. */
  metricsPort: number | null;
  auditCheckpoints: AuditCheckpointSettings;
};

/**
 * Signed checkpoints of the audit chain's head (lib/audit/checkpoint-*.ts).
 * Writing needs the private key; verifying needs only the public key, so a
 * process that only verifies (after a restore) can be given that alone.
 */
export interface AuditCheckpointSettings {
  /** Null: checkpoints are not written here. */
  signing: { privateKey: KeyObject } | null;
  /** Null: checkpoints cannot be checked, so removal of the newest events goes unnoticed. */
  publicKey: KeyObject | null;
  keyId: string | null;
  /** Where checkpoint files are written and read from. */
  dir: string | null;
  webhook: { url: string; secret: string | null } | null;
  /** One JSON line on stdout per checkpoint. */
  logStream: boolean;
  /** 0: only on demand. */
  intervalMinutes: number;
}

/** How the portal renders and applies desired state (lib/cluster). */
export interface ClusterSettings {
  /** record-only forces plans even where a cluster is reachable. */
  mode: "auto" | "record-only";
  /** Run the reconcile worker inside the server process. */
  inProcessWorker: boolean;
  maxAttempts: number;
  driftIntervalMinutes: number;
  /** How long a worker's claim on a change holds without its heartbeat (ALLOT_CLUSTER_LEASE_SECONDS). */
  leaseMs: number;
  /** How long the periodic loops' leader holds its turn without renewal (ALLOT_LEADER_LEASE_SECONDS). */
  leaderLeaseMs: number;
  render: RenderConfig;
  /** Which identity RoleBindings name users by: as the API server's OIDC authenticator reports them. */
  userIdentity: "email" | "subject";
  userPrefix: string;
  /** Prepended to IdP group names in RoleBindings: the API server's --oidc-groups-prefix. */
  groupPrefix: string;
  defaultProjectQuota: { cpuCores: number; memoryBytes: number; storageBytes: number; pvcCount: number };
  /** The cluster's Prometheus, read hourly for usage (lib/metering/prometheus-source.ts); null when PROMETHEUS_URL is unset. */
  prometheus: PrometheusSettings | null;
}

export interface PrometheusSettings {
  url: string;
  /** How many days before today the first run starts. */
  backfillDays: number;
  timeoutMs: number;
}

/** Idle GPU flags: utilisation over the trailing 7 days below `threshold`, over at least `minMeasuredHours` measured GPU-hours. */
export interface GpuIdleSettings {
  /** A fraction 0–1 (ALLOT_GPU_IDLE_THRESHOLD, default 0.2). */
  threshold: number;
  /** GPU-hours with a utilisation figure needed before a project is judged (ALLOT_GPU_IDLE_MIN_HOURS, default 24). */
  minMeasuredHours: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Treat empty strings as unset: `FOO=` in an env file means "not configured". */
function withoutEmpty(env: Record<string, string | undefined>) {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
}

export function parseConfig(env: Record<string, string | undefined>): AllotConfig {
  const parsed = envSchema.safeParse(withoutEmpty(env));
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${String(i.path[0])} ${i.message}`));
  }
  const e = parsed.data;
  const oidcParts = { OIDC_ISSUER: e.OIDC_ISSUER, OIDC_CLIENT_ID: e.OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: e.OIDC_CLIENT_SECRET };
  const setParts = Object.entries(oidcParts).filter(([, v]) => v !== undefined);
  if (setParts.length > 0 && setParts.length < 3) {
    const missing = Object.entries(oidcParts)
      .filter(([, v]) => v === undefined)
      .map(([k]) => k);
    throw new ConfigError(
      missing.map((k) => `${k} is required when ${setParts.map(([s]) => s).join(" and ")} is set (OIDC needs all three)`),
    );
  }
  const auditCheckpoints = auditCheckpointSettings(e);
  const oidc =
    e.OIDC_ISSUER && e.OIDC_CLIENT_ID && e.OIDC_CLIENT_SECRET
      ? { issuer: e.OIDC_ISSUER, clientId: e.OIDC_CLIENT_ID, clientSecret: e.OIDC_CLIENT_SECRET, displayName: e.OIDC_DISPLAY_NAME }
      : null;
  return {
    database: e.DATABASE_URL ? { kind: "postgres", url: e.DATABASE_URL } : { kind: "pglite", dataDir: e.ALLOT_DATA_DIR },
    authSecret: e.AUTH_SECRET,
    oidc,
    // Demo personas are the zero-set-up default; once a real provider is configured
    // they must be asked for explicitly.
    demoSignIn: oidc === null ? e.ALLOT_DEMO !== false : e.ALLOT_DEMO === true,
    platformAdminEmails: e.ALLOT_PLATFORM_ADMINS,
    adminGroup: e.ALLOT_ADMIN_GROUP,
    groupsClaim: e.ALLOT_GROUPS_CLAIM,
    sessionHours: e.ALLOT_SESSION_HOURS,
    sessionRecheckMinutes: e.ALLOT_SESSION_RECHECK_MINUTES,
    shutdownDrainSeconds: e.ALLOT_SHUTDOWN_DRAIN_SECONDS,
    migrateOnStart: e.ALLOT_MIGRATE_ON_START,
    maxCollaboratorDays: e.ALLOT_MAX_COLLABORATOR_DAYS,
    invitationDays: e.ALLOT_INVITATION_DAYS,
    federation: { httpLoopback: e.ALLOT_FEDERATION_HTTP_LOOPBACK, tokenMinutes: e.ALLOT_FEDERATION_TOKEN_MINUTES },
    smtp: e.SMTP_URL ? { url: e.SMTP_URL, from: e.SMTP_FROM } : null,
    publicUrl: e.AUTH_URL,
    testClockFile: e.ALLOT_TEST_CLOCK_FILE,
    currency: e.ALLOT_CURRENCY,
    idleCostDefault: e.ALLOT_IDLE_COST,
    metricsPort: e.METRICS_PORT === 0 ? null : e.METRICS_PORT,
    auditCheckpoints,
    gpuIdle: { threshold: e.ALLOT_GPU_IDLE_THRESHOLD, minMeasuredHours: e.ALLOT_GPU_IDLE_MIN_HOURS },
    usageRetentionMonths: e.ALLOT_USAGE_RETENTION_MONTHS ?? null,
    cluster: {
      mode: e.ALLOT_CLUSTER_MODE,
      inProcessWorker: e.ALLOT_CLUSTER_WORKER,
      maxAttempts: e.ALLOT_CLUSTER_MAX_ATTEMPTS,
      driftIntervalMinutes: e.ALLOT_DRIFT_INTERVAL_MINUTES,
      leaseMs: e.ALLOT_CLUSTER_LEASE_SECONDS * 1000,
      leaderLeaseMs: e.ALLOT_LEADER_LEASE_SECONDS * 1000,
      userIdentity: e.ALLOT_CLUSTER_USER_IDENTITY,
      userPrefix: e.ALLOT_CLUSTER_USER_PREFIX,
      groupPrefix: e.ALLOT_CLUSTER_GROUP_PREFIX,
      defaultProjectQuota: e.ALLOT_DEFAULT_PROJECT_QUOTA,
      prometheus: e.PROMETHEUS_URL ? { url: e.PROMETHEUS_URL, backfillDays: e.PROMETHEUS_BACKFILL_DAYS, timeoutMs: e.PROMETHEUS_TIMEOUT_SECONDS * 1000 } : null,
      render: renderConfig({
        labelPrefix: e.ALLOT_LABEL_PREFIX,
        podSecurityVersion: e.ALLOT_POD_SECURITY_VERSION,
        sharedServicesSelector: e.ALLOT_SHARED_SERVICES_SELECTOR,
        gatewayNamespace: e.ALLOT_GATEWAY_NAMESPACE,
        monitoringNamespace: e.ALLOT_MONITORING_NAMESPACE,
        highPriorityClasses: e.ALLOT_HIGH_PRIORITY_CLASSES,
        kueue: { enabled: e.ALLOT_KUEUE, apiVersion: e.ALLOT_KUEUE_API_VERSION, cohort: e.ALLOT_KUEUE_COHORT, cohortObjects: e.ALLOT_KUEUE_COHORT_OBJECTS },
      }),
    },
  };
}

type ParsedEnv = z.output<typeof envSchema>;

function readKeyFile<T>(variable: string, file: string, load: (pem: string) => T): T {
  let pem: string;
  try {
    pem = fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError([`${variable} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}: ${file})`]);
  }
  return loadKey(variable, pem, load);
}

function loadKey<T>(variable: string, pem: string, load: (pem: string) => T): T {
  try {
    return load(pem);
  } catch (error) {
    if (error instanceof CheckpointKeyError) throw new ConfigError([`${variable} ${error.message}`]);
    throw error;
  }
}

function auditCheckpointSettings(e: ParsedEnv): AuditCheckpointSettings {
  if (e.ALLOT_AUDIT_CHECKPOINT_KEY_FILE && e.ALLOT_AUDIT_CHECKPOINT_KEY) {
    throw new ConfigError(["ALLOT_AUDIT_CHECKPOINT_KEY and ALLOT_AUDIT_CHECKPOINT_KEY_FILE are both set: set only one"]);
  }
  const privateKey = e.ALLOT_AUDIT_CHECKPOINT_KEY_FILE
    ? readKeyFile("ALLOT_AUDIT_CHECKPOINT_KEY_FILE", e.ALLOT_AUDIT_CHECKPOINT_KEY_FILE, checkpointPrivateKey)
    : e.ALLOT_AUDIT_CHECKPOINT_KEY
      ? // An env value often arrives with its newlines escaped.
        loadKey("ALLOT_AUDIT_CHECKPOINT_KEY", e.ALLOT_AUDIT_CHECKPOINT_KEY.replaceAll("\\n", "\n"), checkpointPrivateKey)
      : null;
  const givenPublic = e.ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE
    ? readKeyFile("ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE", e.ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE, checkpointPublicKey)
    : null;
  const privateVariable = e.ALLOT_AUDIT_CHECKPOINT_KEY_FILE ? "ALLOT_AUDIT_CHECKPOINT_KEY_FILE" : "ALLOT_AUDIT_CHECKPOINT_KEY";
  const publicKey = givenPublic ?? (privateKey ? createPublicKeyOf(privateKey) : null);
  if (privateKey && givenPublic && checkpointKeyId(givenPublic) !== checkpointKeyId(createPublicKeyOf(privateKey))) {
    throw new ConfigError([`ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE is not the public half of ${privateVariable}`]);
  }
  const problems: string[] = [];
  if (e.ALLOT_AUDIT_CHECKPOINT_DIR && !publicKey) {
    problems.push("ALLOT_AUDIT_CHECKPOINT_DIR needs ALLOT_AUDIT_CHECKPOINT_KEY_FILE (to write checkpoints) or ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE (to verify them)");
  }
  if (e.ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL && !privateKey) problems.push("ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL needs ALLOT_AUDIT_CHECKPOINT_KEY_FILE: checkpoints are signed before they are sent");
  if (e.ALLOT_AUDIT_CHECKPOINT_WEBHOOK_SECRET && !e.ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL) problems.push("ALLOT_AUDIT_CHECKPOINT_WEBHOOK_SECRET is set without ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL");
  if (privateKey && !e.ALLOT_AUDIT_CHECKPOINT_LOG && !e.ALLOT_AUDIT_CHECKPOINT_DIR && !e.ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL) {
    problems.push(`ALLOT_AUDIT_CHECKPOINT_LOG is 0 and neither ALLOT_AUDIT_CHECKPOINT_DIR nor ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL is set: signed checkpoints would go nowhere`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    signing: privateKey ? { privateKey } : null,
    publicKey,
    keyId: publicKey ? checkpointKeyId(publicKey) : null,
    dir: e.ALLOT_AUDIT_CHECKPOINT_DIR ?? null,
    webhook: e.ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL ? { url: e.ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL, secret: e.ALLOT_AUDIT_CHECKPOINT_WEBHOOK_SECRET ?? null } : null,
    logStream: e.ALLOT_AUDIT_CHECKPOINT_LOG,
    intervalMinutes: e.ALLOT_AUDIT_CHECKPOINT_INTERVAL_MINUTES,
  };
}

const globalForConfig = globalThis as unknown as { allotConfig?: AllotConfig };

/** The process-wide configuration, parsed on first use. */
export function config(): AllotConfig {
  globalForConfig.allotConfig ??= parseConfig(process.env);
  return globalForConfig.allotConfig;
}
