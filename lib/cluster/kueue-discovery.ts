import type { RenderConfig } from "./desired-state";

/**
 * Which Kueue API the cluster serves, so live mode renders what it can take:
 * the "v1beta1 or v1beta2 as the cluster serves (discovery in live
 * mode, a setting otherwise)". Kueue 0.15 serves both versions and prefers
 * v1beta2; older releases serve v1beta1 only, and before 0.14 no Cohort kind
 * in it (Cohort objects came as v1alpha1). A cluster whose chosen version has
 * no `cohorts` resource gets project queues in the platform cohort directly.
 *
 * Pure choice from the discovery documents, and a reader that fetches them
 * through a GET-JSON door (the kube client's), so the worker can ask once
 * and tests can feed documents.
 */

export type KueueApiVersion = RenderConfig["kueue"]["apiVersion"];
export const KUEUE_GROUP = "kueue.x-k8s.io";
const SUPPORTED: readonly KueueApiVersion[] = ["v1beta2", "v1beta1"];

export interface KueueApiChoice {
  apiVersion: KueueApiVersion;
  cohortObjects: boolean;
  /** "discovered" when the cluster decided; "setting" when it could not (not served, or not reachable). */
  source: "discovered" | "setting";
  /** One sentence for logs and the cluster page. */
  note: string;
}

interface GroupList {
  groups?: { name?: string; versions?: { version?: string }[]; preferredVersion?: { version?: string } }[];
}
interface ResourceList {
  resources?: { name?: string }[];
}

const isSupported = (v: string | undefined): v is KueueApiVersion => v !== undefined && (SUPPORTED as readonly string[]).includes(v);

/** The version to render: the group's preferred one if Allot renders it, else the newest Allot renders that is served. */
export function chooseKueueVersion(groups: GroupList): KueueApiVersion | null {
  const group = groups.groups?.find((g) => g.name === KUEUE_GROUP);
  if (!group) return null;
  const served = (group.versions ?? []).map((v) => v.version);
  const preferred = group.preferredVersion?.version;
  if (isSupported(preferred) && served.includes(preferred)) return preferred;
  return SUPPORTED.find((v) => served.includes(v)) ?? null;
}

export function kueueApiChoice(setting: RenderConfig["kueue"], groups: GroupList | null, resources: ResourceList | null): KueueApiChoice {
  const fallback = { apiVersion: setting.apiVersion, cohortObjects: setting.cohortObjects !== false, source: "setting" as const };
  if (!groups) return { ...fallback, note: `Kueue discovery failed; rendering ${setting.apiVersion} as set` };
  const version = chooseKueueVersion(groups);
  if (!version) return { ...fallback, note: `the cluster serves no Kueue version Allot renders (v1beta1, v1beta2); rendering ${setting.apiVersion} as set` };
  const cohortObjects = (resources?.resources ?? []).some((r) => r.name === "cohorts");
  return {
    apiVersion: version,
    cohortObjects,
    source: "discovered",
    note: `the cluster serves ${KUEUE_GROUP}/${version}${cohortObjects ? " with Cohort objects" : " without Cohort objects: project queues join the platform cohort directly"}`,
  };
}

/** The render settings with the discovered choice applied (unchanged when Kueue is off). */
export function withKueueChoice(render: RenderConfig, choice: KueueApiChoice | null): RenderConfig {
  if (!render.kueue.enabled || !choice) return render;
  return { ...render, kueue: { ...render.kueue, apiVersion: choice.apiVersion, cohortObjects: choice.cohortObjects } };
}

/** Reads the discovery documents through `getJson` (null on any failure: the setting stands). */
export async function discoverKueueApi(getJson: (path: string) => Promise<unknown>, setting: RenderConfig["kueue"]): Promise<KueueApiChoice> {
  let groups: GroupList | null;
  try {
    groups = (await getJson("/apis")) as GroupList;
  } catch {
    return kueueApiChoice(setting, null, null);
  }
  const version = chooseKueueVersion(groups);
  let resources: ResourceList | null = null;
  if (version) {
    try {
      resources = (await getJson(`/apis/${KUEUE_GROUP}/${version}`)) as ResourceList;
    } catch {
      return kueueApiChoice(setting, null, null);
    }
  }
  return kueueApiChoice(setting, groups, resources);
}

/** What discovery needs of a cluster client: one GET returning parsed JSON. */
export interface DiscoveryDoor {
  getJson(path: string, what: string): Promise<unknown>;
}

const DISCOVERY_TTL_MS = 5 * 60_000;
const discovered = new WeakMap<DiscoveryDoor, { at: number; choice: Promise<KueueApiChoice> }>();

/**
 * The live cluster's Kueue choice, asked at most every five minutes per
 * client (a Kueue upgrade is picked up within that), null when Kueue is off.
 * A failed discovery is not remembered as long: it is asked again next time.
 */
export async function kueueChoiceFor(door: DiscoveryDoor, render: RenderConfig, now: number, log: (message: string) => void = () => {}): Promise<KueueApiChoice | null> {
  if (!render.kueue.enabled) return null;
  const cached = discovered.get(door);
  if (cached && now - cached.at < DISCOVERY_TTL_MS) return cached.choice;
  const choice = discoverKueueApi((path) => door.getJson(path, "Kueue discovery"), render.kueue);
  discovered.set(door, { at: now, choice });
  const result = await choice;
  if (result.source === "setting") discovered.delete(door);
  const previous = cached ? await cached.choice : null;
  if (!previous || previous.apiVersion !== result.apiVersion || previous.cohortObjects !== result.cohortObjects) log(`Kueue: ${result.note}`);
  return result;
}
