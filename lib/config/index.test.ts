import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "./index";

describe("parseConfig", () => {
  it("defaults to the embedded database, demo sign-in and no admins", () => {
    const c = parseConfig({});
    expect(c.database).toEqual({ kind: "pglite", dataDir: ".data" });
    expect(c.demoSignIn).toBe(true);
    expect(c.oidc).toBeNull();
    expect(c.platformAdminEmails).toEqual([]);
  });

  it("uses PostgreSQL when DATABASE_URL is set", () => {
    expect(parseConfig({ DATABASE_URL: "postgres://u@h:5432/db" }).database).toEqual({ kind: "postgres", url: "postgres://u@h:5432/db" });
  });

  it("names the variable and what is allowed when a value is wrong", () => {
    expect(() => parseConfig({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(() => parseConfig({ ALLOT_PLATFORM_ADMINS: "a@b.io, not-an-email" })).toThrow(/ALLOT_PLATFORM_ADMINS/);
    expect(() => parseConfig({ ALLOT_DEMO: "yes" })).toThrow(/ALLOT_DEMO must be 0 or 1/);
    expect(() => parseConfig({ ALLOT_SESSION_HOURS: "abc" })).toThrow(/ALLOT_SESSION_HOURS/);
    expect(() => parseConfig({ AUTH_SECRET: "short" })).toThrow(/AUTH_SECRET must be at least 32 characters/);
  });

  it("requires all three OIDC variables together", () => {
    try {
      parseConfig({ OIDC_ISSUER: "https://idp.example.com" });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems.join("\n")).toMatch(/OIDC_CLIENT_ID is required/);
      expect((e as ConfigError).problems.join("\n")).toMatch(/OIDC_CLIENT_SECRET is required/);
    }
  });

  it("turns demo sign-in off under OIDC unless ALLOT_DEMO=1", () => {
    const oidc = { OIDC_ISSUER: "https://idp.example.com", OIDC_CLIENT_ID: "allot", OIDC_CLIENT_SECRET: "s" };
    expect(parseConfig(oidc).demoSignIn).toBe(false);
    expect(parseConfig({ ...oidc, ALLOT_DEMO: "1" }).demoSignIn).toBe(true);
    expect(parseConfig({ ALLOT_DEMO: "0" }).demoSignIn).toBe(false);
  });

  it("normalises admin emails", () => {
    expect(parseConfig({ ALLOT_PLATFORM_ADMINS: " Ops@Example.com ,b@example.com," }).platformAdminEmails).toEqual([
      "ops@example.com",
      "b@example.com",
    ]);
  });

  it("reads the idle GPU settings as a fraction and GPU-hours, naming the variable when wrong", () => {
    expect(parseConfig({}).gpuIdle).toEqual({ threshold: 0.2, minMeasuredHours: 24 });
    expect(parseConfig({ ALLOT_GPU_IDLE_THRESHOLD: "0.35", ALLOT_GPU_IDLE_MIN_HOURS: "48" }).gpuIdle).toEqual({ threshold: 0.35, minMeasuredHours: 48 });
    expect(() => parseConfig({ ALLOT_GPU_IDLE_THRESHOLD: "20" })).toThrow(/ALLOT_GPU_IDLE_THRESHOLD must be a fraction between 0 and 1/);
    expect(() => parseConfig({ ALLOT_GPU_IDLE_THRESHOLD: "low" })).toThrow(/ALLOT_GPU_IDLE_THRESHOLD must be a fraction/);
    expect(() => parseConfig({ ALLOT_GPU_IDLE_MIN_HOURS: "-1" })).toThrow(/ALLOT_GPU_IDLE_MIN_HOURS must be 0 or more/);
  });

  it("keeps all usage unless ALLOT_USAGE_RETENTION_MONTHS names a whole number of months", () => {
    expect(parseConfig({}).usageRetentionMonths).toBeNull();
    expect(parseConfig({ ALLOT_USAGE_RETENTION_MONTHS: "" }).usageRetentionMonths).toBeNull();
    expect(parseConfig({ ALLOT_USAGE_RETENTION_MONTHS: "13" }).usageRetentionMonths).toBe(13);
    expect(() => parseConfig({ ALLOT_USAGE_RETENTION_MONTHS: "0" })).toThrow(/ALLOT_USAGE_RETENTION_MONTHS must be at least 1 \(or unset to keep all usage\)/);
    expect(() => parseConfig({ ALLOT_USAGE_RETENTION_MONTHS: "1.5" })).toThrow(/ALLOT_USAGE_RETENTION_MONTHS must be a whole number of months/);
    expect(() => parseConfig({ ALLOT_USAGE_RETENTION_MONTHS: "a year" })).toThrow(/ALLOT_USAGE_RETENTION_MONTHS must be a whole number of months/);
  });

  describe("cluster settings", () => {
    it("defaults to auto mode, the in-process worker, no Kueue and the starting project quota", () => {
      const c = parseConfig({}).cluster;
      expect(c).toMatchObject({ mode: "auto", inProcessWorker: true, maxAttempts: 8, driftIntervalMinutes: 10, userIdentity: "email", userPrefix: "" });
      expect(c.defaultProjectQuota).toEqual({ cpuCores: 4, memoryBytes: 16 * 2 ** 30, storageBytes: 100 * 2 ** 30, pvcCount: 10 });
      expect(c.render).toMatchObject({ labelPrefix: "allot.dev", podSecurityVersion: "v1.30", kueue: { enabled: false } });
      expect(c.render.sharedServicesSelector).toBeUndefined();
    });

    it("takes the claim and leadership leases in whole seconds, 30 s and 15 s by default", () => {
      expect(parseConfig({}).cluster).toMatchObject({ leaseMs: 30_000, leaderLeaseMs: 15_000 });
      expect(parseConfig({ ALLOT_CLUSTER_LEASE_SECONDS: "6", ALLOT_LEADER_LEASE_SECONDS: "4" }).cluster).toMatchObject({ leaseMs: 6000, leaderLeaseMs: 4000 });
      expect(() => parseConfig({ ALLOT_CLUSTER_LEASE_SECONDS: "2" })).toThrow(/ALLOT_CLUSTER_LEASE_SECONDS must be at least 3/);
      expect(() => parseConfig({ ALLOT_CLUSTER_LEASE_SECONDS: "7.5" })).toThrow(/ALLOT_CLUSTER_LEASE_SECONDS must be a whole number of seconds/);
      expect(() => parseConfig({ ALLOT_LEADER_LEASE_SECONDS: "601" })).toThrow(/ALLOT_LEADER_LEASE_SECONDS must be at most 600/);
    });

    it("reads label selectors, namespaces, priority classes, Kueue and quotas", () => {
      const c = parseConfig({
        ALLOT_SHARED_SERVICES_SELECTOR: "platform.example.com/shared=true, tier=infra",
        ALLOT_GATEWAY_NAMESPACE: "ingress",
        ALLOT_HIGH_PRIORITY_CLASSES: "serving-high, critical",
        ALLOT_KUEUE: "1",
        ALLOT_KUEUE_API_VERSION: "v1beta1",
        ALLOT_DEFAULT_PROJECT_QUOTA: "cpu=500m,memory=2Gi,storage=10Gi,pvcs=3",
        ALLOT_CLUSTER_USER_IDENTITY: "subject",
        ALLOT_CLUSTER_USER_PREFIX: "oidc:",
      }).cluster;
      expect(c.render.sharedServicesSelector).toEqual({ "platform.example.com/shared": "true", tier: "infra" });
      expect(c.render.gatewayNamespace).toBe("ingress");
      expect(c.render.highPriorityClasses).toEqual(["serving-high", "critical"]);
      expect(c.render.kueue).toMatchObject({ enabled: true, apiVersion: "v1beta1" });
      expect(c.defaultProjectQuota).toEqual({ cpuCores: 0.5, memoryBytes: 2 * 2 ** 30, storageBytes: 10 * 2 ** 30, pvcCount: 3 });
      expect(c).toMatchObject({ userIdentity: "subject", userPrefix: "oidc:" });
    });

    it.each([
      ["ALLOT_SHARED_SERVICES_SELECTOR", ",", /ALLOT_SHARED_SERVICES_SELECTOR must name at least one label/],
      ["ALLOT_SHARED_SERVICES_SELECTOR", "no-equals-sign", /ALLOT_SHARED_SERVICES_SELECTOR must be a comma-separated list of key=value labels/],
      ["ALLOT_GATEWAY_NAMESPACE", "Not_A_Namespace", /ALLOT_GATEWAY_NAMESPACE must be a Kubernetes namespace name/],
      ["ALLOT_DEFAULT_PROJECT_QUOTA", "cpu=-1", /ALLOT_DEFAULT_PROJECT_QUOTA must be cpu=/],
      ["ALLOT_DEFAULT_PROJECT_QUOTA", "gpus=4", /bad part: "gpus=4"/],
      ["ALLOT_CLUSTER_MODE", "yolo", /ALLOT_CLUSTER_MODE must be auto or record-only/],
      ["ALLOT_CLUSTER_MAX_ATTEMPTS", "0", /ALLOT_CLUSTER_MAX_ATTEMPTS must be at least 1/],
    ])("refuses %s=%j with a message naming it", (name, value, message) => {
      expect(() => parseConfig({ [name]: value })).toThrow(message);
    });
  });

  describe("Prometheus", () => {
    it("is off without PROMETHEUS_URL, and reads a week back on its first run by default", () => {
      expect(parseConfig({}).cluster.prometheus).toBeNull();
      expect(parseConfig({ PROMETHEUS_URL: "http://prometheus.monitoring:9090" }).cluster.prometheus).toEqual({ url: "http://prometheus.monitoring:9090", backfillDays: 7, timeoutMs: 30_000 });
      expect(parseConfig({ PROMETHEUS_URL: "https://thanos.example.com/q", PROMETHEUS_BACKFILL_DAYS: "0", PROMETHEUS_TIMEOUT_SECONDS: "120" }).cluster.prometheus).toEqual({
        url: "https://thanos.example.com/q",
        backfillDays: 0,
        timeoutMs: 120_000,
      });
    });

    it.each([
      ["PROMETHEUS_URL", "prometheus:9090", /PROMETHEUS_URL must be an http:\/\/ or https:\/\/ URL/],
      ["PROMETHEUS_BACKFILL_DAYS", "-1", /PROMETHEUS_BACKFILL_DAYS must be 0 or more/],
      ["PROMETHEUS_BACKFILL_DAYS", "1.5", /PROMETHEUS_BACKFILL_DAYS must be a whole number of days/],
      ["PROMETHEUS_TIMEOUT_SECONDS", "0", /PROMETHEUS_TIMEOUT_SECONDS must be at least 1/],
    ])("refuses %s=%j with a message naming it", (name, value, message) => {
      expect(() => parseConfig({ [name]: value })).toThrow(message);
    });
  });
});
