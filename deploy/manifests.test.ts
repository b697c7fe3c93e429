import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { BOUND_CLUSTER_ROLES } from "@/lib/cluster/permissions";
import { portalClusterRole } from "@/lib/cluster/portal-rbac";
import { kustomize, kustomizeWith, type Manifest } from "@/test/kustomize";

/**
 * The Kustomize manifests as kubectl renders them: every overlay and
 * component builds, every object passes the Kubernetes schema, and the
 * promises of the README ("Deploy on Kubernetes") hold on the output.
 */

const DEPLOY = import.meta.dirname;
const at = (p: string) => path.join(DEPLOY, p);

const variants: Record<string, Manifest[]> = {
  base: kustomize(at("base")),
  production: kustomize(at("overlays/production")),
  "try-out": kustomize(at("overlays/try-out")),
  "production + servicemonitor + kueue": kustomizeWith(at("overlays/production"), [at("components/servicemonitor"), at("components/kueue")], "allot"),
  "try-out + servicemonitor": kustomizeWith(at("overlays/try-out"), [at("components/servicemonitor")], "allot"),
};
const overlays = Object.entries(variants).filter(([name]) => name !== "base");

type Model = new (data: never) => { validate(): void };
/** kubernetes-models lays its classes out as <group>/<version>/<Kind> (the core group as v1/<Kind>). */
async function schemaFor(apiVersion: string, kind: string): Promise<Model | undefined> {
  try {
    const mod = (await import(`kubernetes-models/${apiVersion}/${kind}`)) as Record<string, Model>;
    return mod[kind];
  } catch {
    return undefined;
  }
}

// Minimal typings of the fields the assertions read.
interface Probe {
  httpGet?: { path: string; port: string | number };
  exec?: { command: string[] };
}
interface Container {
  name: string;
  image: string;
  args?: string[];
  ports?: { name: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    runAsNonRoot?: boolean;
    runAsUser?: number;
    capabilities?: { drop?: string[]; add?: string[] };
    seccompProfile?: { type: string };
    privileged?: boolean;
  };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
  initContainers?: Container[];
  containers: Container[];
  volumes?: { name: string; emptyDir?: object; secret?: { secretName: string }; projected?: { sources: { serviceAccountToken?: object; secret?: { name: string } }[] } }[];
  topologySpreadConstraints?: { topologyKey: string; labelSelector: { matchLabels: Record<string, string> } }[];
  hostNetwork?: boolean;
  hostPID?: boolean;
}
interface Workload extends Manifest {
  spec: { replicas?: number; selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } };
}
interface NetworkPolicyRule {
  ports?: { port: string | number; protocol?: string }[];
  from?: { namespaceSelector?: { matchLabels?: Record<string, string> }; podSelector?: object }[];
  to?: object[];
}

const find = (objects: Manifest[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const portal = (objects: Manifest[]) => find(objects, "Deployment", "allot") as Workload;
const workloads = (objects: Manifest[]) => objects.filter((o): o is Workload => o.kind === "Deployment" || o.kind === "StatefulSet");
const containersOf = (w: Workload) => [...(w.spec.template.spec.initContainers ?? []), ...w.spec.template.spec.containers];
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
const SECRET_NAME = /SECRET|PASSWORD|TOKEN|PRIVATE|CREDENTIAL|DATABASE_URL|_KEY$/i;

describe.each(Object.entries(variants))("deploy/ rendered as %s", (_name, objects) => {
  it("validates every object against the Kubernetes schemas (kubernetes-models)", async () => {
    expect(objects.length).toBeGreaterThan(8);
    for (const o of objects) {
      if (o.kind === "ServiceMonitor") continue; // a CRD: checked below
      const Model = await schemaFor(o.apiVersion, o.kind);
      expect(Model, `a schema for ${o.apiVersion} ${o.kind}`).toBeDefined();
      expect(() => new Model!(o as never).validate(), `${o.kind} ${o.metadata.name}`).not.toThrow();
    }
  });

  it("puts every namespaced object in the allot namespace, created by the same manifests", () => {
    const clusterScoped = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding"]);
    for (const o of objects) expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe(clusterScoped.has(o.kind) ? undefined : "allot");
    expect(find(objects, "Namespace", "allot")?.metadata.labels?.["pod-security.kubernetes.io/enforce"]).toBe("restricted");
  });

  it("carries no secret value: no Secret objects, secret-like variables only from Secret references", () => {
    expect(objects.filter((o) => o.kind === "Secret")).toEqual([]);
    for (const w of workloads(objects)) {
      for (const c of containersOf(w)) {
        for (const e of c.env ?? []) {
          if (SECRET_NAME.test(e.name) && e.value !== undefined) {
            // A URL without credentials (the try-out's in-namespace database) is not a secret.
            expect(e.value, `${w.metadata.name}/${c.name} ${e.name}`).not.toMatch(/:\/\/[^/@]*:[^/@]*@/);
            expect(e.name).toBe("DATABASE_URL");
          }
          if (e.valueFrom) expect(e.valueFrom.secretKeyRef, `${c.name} ${e.name}`).toBeDefined();
        }
      }
    }
    for (const cm of objects.filter((o) => o.kind === "ConfigMap")) {
      for (const [key, value] of Object.entries((cm as Manifest & { data?: Record<string, string> }).data ?? {})) {
        expect(SECRET_NAME.test(key) && key !== "AUTH_SECRET_FILE", `ConfigMap key ${key}`).toBe(false);
        expect(value).not.toMatch(/:\/\/[^/@]*:[^/@]*@/);
      }
    }
  });

  it("runs every container non-root, read-only, without capabilities or privilege escalation, under RuntimeDefault seccomp", () => {
    for (const w of workloads(objects)) {
      const pod = w.spec.template.spec;
      expect(pod.securityContext?.runAsNonRoot, w.metadata.name).toBe(true);
      expect(pod.securityContext?.seccompProfile?.type).toBe("RuntimeDefault");
      expect(pod.hostNetwork ?? false).toBe(false);
      expect(pod.hostPID ?? false).toBe(false);
      for (const c of containersOf(w)) {
        const sc = c.securityContext;
        expect(sc, `${w.metadata.name}/${c.name}`).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ["ALL"] } });
        expect(sc?.capabilities?.add ?? []).toEqual([]);
        expect(sc?.privileged ?? false).toBe(false);
        expect(c.resources?.requests?.cpu && c.resources.requests.memory, `${c.name} requests`).toBeTruthy();
        expect(c.resources?.limits?.cpu && c.resources.limits.memory, `${c.name} limits`).toBeTruthy();
        expect(c.volumeMounts?.find((m) => m.mountPath === "/tmp"), `${c.name} has a writable /tmp`).toBeDefined();
      }
    }
  });

  it("runs the portal as the image's user, 2 replicas spread over nodes, with startup, liveness and readiness probes", () => {
    const d = portal(objects);
    const pod = d.spec.template.spec;
    expect(d.spec.replicas).toBe(2);
    expect(pod.securityContext?.runAsUser).toBe(10001);
    const c = pod.containers.find((x) => x.name === "portal")!;
    expect(c.args).toEqual(["serve"]);
    expect(c.ports).toEqual(expect.arrayContaining([expect.objectContaining({ name: "http", containerPort: 3000 }), expect.objectContaining({ name: "metrics", containerPort: 9464 })]));
    expect(c.startupProbe?.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(c.livenessProbe?.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(c.readinessProbe?.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(pod.topologySpreadConstraints?.map((t) => t.topologyKey)).toContain("kubernetes.io/hostname");
    for (const t of pod.topologySpreadConstraints ?? []) expect(matches(t.labelSelector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
    const tmp = pod.volumes?.find((v) => v.name === c.volumeMounts?.find((m) => m.mountPath === "/tmp")?.name);
    expect(tmp?.emptyDir).toBeDefined();
  });

  it("migrates in an init container before the portal starts, and the portal does not migrate again", () => {
    const pod = portal(objects).spec.template.spec;
    expect(pod.initContainers?.map((c) => [c.name, c.args])).toEqual([["migrate", ["migrate"]]]);
    expect(pod.initContainers![0]!.image).toBe(pod.containers[0]!.image);
    const config = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === pod.containers[0]!.envFrom?.[0]?.configMapRef?.name) as Manifest & { data: Record<string, string> };
    expect(config.data.ALLOT_MIGRATE_ON_START).toBe("0");
    // The metrics listener and the port the NetworkPolicy and ServiceMonitor name are the same.
    expect(Number(config.data.METRICS_PORT)).toBe(pod.containers[0]!.ports!.find((p) => p.name === "metrics")!.containerPort);
  });

  it("mounts the API token only into the portal container, which runs the reconcile worker", () => {
    const pod = portal(objects).spec.template.spec;
    const sa = find(objects, "ServiceAccount", pod.serviceAccountName!) as Manifest & { automountServiceAccountToken?: boolean };
    expect(sa.automountServiceAccountToken).toBe(false);
    expect(pod.automountServiceAccountToken).toBe(false);
    const tokenVolumes = (pod.volumes ?? []).filter((v) => v.projected?.sources.some((s) => s.serviceAccountToken)).map((v) => v.name);
    expect(tokenVolumes).toHaveLength(1);
    const holders = containersOf(portal(objects)).filter((c) => c.volumeMounts?.some((m) => tokenVolumes.includes(m.name)));
    expect(holders.map((c) => c.name)).toEqual(["portal"]);
    expect(holders[0]!.volumeMounts!.find((m) => tokenVolumes.includes(m.name))).toMatchObject({ mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", readOnly: true });
    for (const w of workloads(objects).filter((x) => x !== portal(objects))) expect(w.spec.template.spec.automountServiceAccountToken, w.metadata.name).toBe(false);
  });

  it("has a PodDisruptionBudget and an HTTP-only Service for the portal's pods", () => {
    const labels = portal(objects).spec.template.metadata.labels;
    const pdb = find(objects, "PodDisruptionBudget", "allot") as Manifest & { spec: { maxUnavailable?: number; minAvailable?: number; selector: { matchLabels: Record<string, string> } } };
    expect(matches(pdb.spec.selector.matchLabels, labels)).toBe(true);
    expect(pdb.spec.maxUnavailable ?? 2 - (pdb.spec.minAvailable ?? 0)).toBe(1);
    const svc = find(objects, "Service", "allot") as Manifest & { spec: { selector: Record<string, string>; ports: { name: string; targetPort: string }[]; type?: string } };
    expect(matches(svc.spec.selector, labels)).toBe(true);
    expect(svc.spec.ports.map((p) => [p.name, p.targetPort])).toEqual([["http", "http"]]);
    expect(svc.spec.type ?? "ClusterIP").toBe("ClusterIP");
  });

  it("fences the portal: HTTP in, metrics from monitoring only; DNS, PostgreSQL and HTTPS out", () => {
    const np = find(objects, "NetworkPolicy", "allot") as Manifest & {
      spec: { podSelector: { matchLabels: Record<string, string> }; policyTypes: string[]; ingress: NetworkPolicyRule[]; egress: NetworkPolicyRule[] };
    };
    expect(matches(np.spec.podSelector.matchLabels, portal(objects).spec.template.metadata.labels)).toBe(true);
    expect(np.spec.policyTypes).toEqual(["Ingress", "Egress"]);
    const ports = (rules: NetworkPolicyRule[]) => rules.flatMap((r) => (r.ports ?? []).map((p) => p.port));
    expect(ports(np.spec.ingress).sort()).toEqual(["http", "metrics"]);
    const metrics = np.spec.ingress.find((r) => r.ports?.some((p) => p.port === "metrics"))!;
    expect(metrics.from).toEqual([{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } }]);
    expect(ports(np.spec.egress)).toEqual(expect.arrayContaining([53, 5432, 443]));
    const dns = np.spec.egress.find((r) => r.ports?.some((p) => p.port === 53))!;
    expect(dns.to).toBeDefined();
  });

  it("binds the portal's service account to the generated least-privilege ClusterRole: no wildcard, bind on admin/edit/view only", () => {
    const role = find(objects, "ClusterRole", "allot") as Manifest & { rules: { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }[] };
    expect(role.rules).toEqual(portalClusterRole().rules);
    for (const r of role.rules) expect([...r.apiGroups, ...r.resources, ...r.verbs].some((s) => s.includes("*"))).toBe(false);
    const bind = role.rules.filter((r) => r.verbs.includes("bind"));
    expect(bind).toEqual([{ apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"], resourceNames: [...BOUND_CLUSTER_ROLES], verbs: ["bind"] }]);
    const bindings = objects.filter((o) => o.kind === "ClusterRoleBinding" || o.kind === "RoleBinding") as (Manifest & { roleRef: { name: string }; subjects: { kind: string; name: string; namespace?: string }[] })[];
    expect(bindings.map((b) => [b.kind, b.roleRef.name, b.subjects])).toEqual([["ClusterRoleBinding", "allot", [{ kind: "ServiceAccount", name: "allot", namespace: "allot" }]]]);
  });
});

describe.each(overlays)("deploy/ overlay %s", (_name, objects) => {
  it("sets a real image for every Allot container", () => {
    for (const c of containersOf(portal(objects))) expect(c.image).toMatch(/^[a-z0-9.-]+(:\d+)?\/[a-z0-9./-]*allot:[\w.-]+$/);
  });

  it("gives the migration and the portal the same database", () => {
    const [migrate, serve] = containersOf(portal(objects));
    const db = (c: Container) => JSON.stringify(c.env?.filter((e) => ["DATABASE_URL", "PGPASSWORD"].includes(e.name)));
    expect(db(migrate!)).toBe(db(serve!));
    expect(serve!.env?.some((e) => e.name === "DATABASE_URL")).toBe(true);
  });

  it("references only the Secrets the README tells operators to create", () => {
    const readme = fs.readFileSync(path.join(DEPLOY, "..", "README.md"), "utf8");
    const names = new Set<string>();
    for (const w of workloads(objects)) {
      for (const c of containersOf(w)) for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) names.add(`${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`);
      for (const v of w.spec.template.spec.volumes ?? []) if (v.secret) names.add(`${v.secret.secretName}/`);
    }
    expect(names.size).toBeGreaterThan(1);
    for (const ref of names) {
      const [name, key] = ref.split("/") as [string, string];
      expect(readme, `README creates Secret ${name}`).toContain(`kubectl -n allot create secret generic ${name}`);
      if (key) expect(readme, `README sets ${name} key ${key}`).toMatch(new RegExp(`create secret generic ${name}[^\\n]*--from-(literal|file)=${key}=`));
    }
  });
});

describe("deploy/ overlays, each its own way", () => {
  const data = (objects: Manifest[]) => (objects.find((o) => o.kind === "ConfigMap") as Manifest & { data: Record<string, string> }).data;

  it("production: OIDC sign-in from a Secret, demo off, an external database", () => {
    const objects = variants.production!;
    expect(data(objects).ALLOT_DEMO).toBe("0");
    expect(data(objects).OIDC_ISSUER).toMatch(/^https:\/\//);
    expect(data(objects).AUTH_URL).toMatch(/^https:\/\//);
    const env = portal(objects).spec.template.spec.containers[0]!.env!;
    expect(env.map((e) => [e.name, e.valueFrom?.secretKeyRef?.name])).toEqual([
      ["DATABASE_URL", "allot-database"],
      ["OIDC_CLIENT_ID", "allot-oidc"],
      ["OIDC_CLIENT_SECRET", "allot-oidc"],
    ]);
    expect(objects.some((o) => o.kind === "StatefulSet")).toBe(false);
  });

  it("try-out: one PostgreSQL replica on a volume, reached only by the portal, and demo sign-in", () => {
    const objects = variants["try-out"]!;
    expect(data(objects).ALLOT_DEMO).toBe("1");
    const pg = find(objects, "StatefulSet", "allot-postgres") as Workload & { spec: { volumeClaimTemplates: object[]; serviceName: string } };
    expect(pg.spec.replicas).toBe(1);
    expect(pg.spec.volumeClaimTemplates).toHaveLength(1);
    expect(find(objects, "Service", pg.spec.serviceName)).toBeDefined();
    const pgPolicy = find(objects, "NetworkPolicy", "allot-postgres") as Manifest & { spec: { ingress: { from: { podSelector: { matchLabels: Record<string, string> } }[] }[]; policyTypes: string[] } };
    expect(pgPolicy.spec.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(matches(pgPolicy.spec.ingress[0]!.from[0]!.podSelector.matchLabels, portal(objects).spec.template.metadata.labels)).toBe(true);
    const url = portal(objects).spec.template.spec.containers[0]!.env!.find((e) => e.name === "DATABASE_URL")!.value;
    expect(url).toBe(`postgres://allot@${pg.spec.serviceName}:5432/allot`);
  });

  it("servicemonitor: Prometheus scrapes the metrics port through a Service of its own", () => {
    const objects = variants["production + servicemonitor + kueue"]!;
    const monitor = find(objects, "ServiceMonitor", "allot") as Manifest & { spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string }[] } };
    expect(monitor.apiVersion).toBe("monitoring.coreos.com/v1");
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: "metrics", path: "/metrics" })]);
    const services = objects.filter((o) => o.kind === "Service" && matches(monitor.spec.selector.matchLabels, o.metadata.labels ?? {})) as (Manifest & {
      spec: { selector: Record<string, string>; ports: { name: string; port: number; targetPort: string }[] };
    })[];
    expect(services.map((s) => s.metadata.name)).toEqual(["allot-metrics"]);
    expect(services[0]!.spec.ports).toEqual([expect.objectContaining({ name: "metrics", port: 9464, targetPort: "metrics" })]);
    expect(matches(services[0]!.spec.selector, portal(objects).spec.template.metadata.labels)).toBe(true);
    expect(data(objects)).toMatchObject({ ALLOT_KUEUE: "1", ALLOT_DEMO: "0" });
  });

  it("kueue: the Kueue settings shipped beside the component turn on what the rendered queues rely on, and are not applied by the component", () => {
    const file = at("components/kueue/kueue-configuration.yaml");
    const configuration = parse(fs.readFileSync(file, "utf8")) as {
      apiVersion: string;
      kind: string;
      fairSharing?: { enable?: boolean; preemptionStrategies?: string[] };
      admissionFairSharing?: { usageHalfLifeTime?: string };
    };
    expect(configuration).toMatchObject({ apiVersion: "config.kueue.x-k8s.io/v1beta2", kind: "Configuration" });
    // Off by default in Kueue: every rendered fairSharing.weight would be ignored.
    expect(configuration.fairSharing?.enable).toBe(true);
    expect(configuration.fairSharing?.preemptionStrategies).toEqual(["LessThanOrEqualToFinalShare", "LessThanInitialShare"]);
    // 0 forgets usage at once: a positive Go duration.
    expect(configuration.admissionFairSharing?.usageHalfLifeTime).toMatch(/^[1-9]\d*h$/);
    const component = parse(fs.readFileSync(at("components/kueue/kustomization.yaml"), "utf8")) as { resources?: string[] };
    expect(component.resources ?? []).not.toContain("kueue-configuration.yaml");
    expect(variants["production + servicemonitor + kueue"]!.some((o) => o.kind === "Configuration")).toBe(false);
  });
});
