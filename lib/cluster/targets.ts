import type { DesiredTenant, PoolFlavor, RenderConfig } from "./desired-state";
import type { ObjectRef } from "./kube-client";
import type { LoadedPlatform, LoadedProject, LoadedTenant } from "./desired-from-db";
import { renderProjectObjects, type ClusterObject } from "./render-project";
import { renderPlatformFlavors } from "./render-platform";
import { renderTenantObjects } from "./render-tenant";
import { validateObjects } from "./validate";

/**
 * What one cluster change covers: a project's namespace and everything in it,
 * a tenant's cluster-scoped objects, or the platform's Kueue ResourceFlavors
 * (shared by every tenant; `dedicated` are the dedicated tenants, whose pools
 * are flavours of their own). Each target knows how to find the objects the
 * portal owns there, so ones no longer desired can be deleted.
 */
export type Target = (
  | { kind: "project"; tenant: DesiredTenant; project: LoadedProject }
  | { kind: "tenant"; tenant: DesiredTenant; projects: LoadedProject[] }
  | { kind: "platform"; dedicated: DesiredTenant[] }
) & {
  /** The pools' flavours when read from the database; absent: RenderConfig.flavors. */
  flavors?: PoolFlavor[];
};

/** Where owned objects of a target are listed: the kinds, and the label selector that picks this target's. */
export type { ObjectRef };

export interface OwnedScope {
  namespace?: string;
  labelSelector: string;
  /**
   * What labelSelector has in common with every other target of the same
   * owner (the portal's managed-by label): prune listings of many targets
   * are then one cluster-wide LIST per kind with it (OwnedListing in apply.ts).
   * Absent: this scope is always listed on its own.
   */
  sharedSelector?: string;
  kinds: { apiVersion: string; kind: string }[];
}

export function targetOf(loaded: LoadedTenant, projectId: string | null): Target | null {
  if (projectId === null) return { kind: "tenant", tenant: loaded.tenant, projects: loaded.projects, flavors: loaded.flavors };
  const project = loaded.projects.find((p) => p.id === projectId);
  return project ? { kind: "project", tenant: loaded.tenant, project, flavors: loaded.flavors } : null;
}

export const platformTargetOf = (loaded: LoadedPlatform): Target => ({ kind: "platform", dedicated: loaded.dedicated, flavors: loaded.flavors });

/** The objects a target should have, in apply order, validated against the Kubernetes schemas (throws InvalidObjectError). */
export async function renderTarget(target: Target, base: RenderConfig): Promise<ClusterObject[]> {
  const config = target.flavors ? { ...base, flavors: target.flavors } : base;
  const objects =
    target.kind === "project"
      ? renderProjectObjects(target.tenant, target.project, config)
      : target.kind === "tenant"
        ? renderTenantObjects(target.tenant, target.projects, config)
        : renderPlatformFlavors(target.dedicated, config);
  await validateObjects(objects);
  return objects;
}

export function ownedScope(target: Target, config: RenderConfig): OwnedScope {
  const managed = `app.kubernetes.io/managed-by=${config.managedBy}`;
  const kueue = `kueue.x-k8s.io/${config.kueue.apiVersion}`;
  // The platform's flavours carry no tenant label (meta.ts platformLabels).
  if (target.kind === "platform") return { labelSelector: `${managed},${config.labelPrefix}/scope=platform`, sharedSelector: managed, kinds: [{ apiVersion: kueue, kind: "ResourceFlavor" }] };
  const tenant = `${config.labelPrefix}/tenant=${target.tenant.slug}`;
  if (target.kind === "tenant") {
    return {
      labelSelector: `${managed},${tenant},!${config.labelPrefix}/project`,
      sharedSelector: managed,
      // Deleted in this order when no longer desired: queues before the cohort and flavours they name
      // (the tenant renders no flavour now; this deletes those earlier releases named per tenant).
      kinds: [
        { apiVersion: kueue, kind: "ClusterQueue" },
        { apiVersion: kueue, kind: "Cohort" },
        { apiVersion: kueue, kind: "ResourceFlavor" },
        { apiVersion: kueue, kind: "WorkloadPriorityClass" },
      ],
    };
  }
  // The Namespace itself is never deleted by the portal: that would delete workloads and data.
  return {
    namespace: target.project.namespace,
    labelSelector: `${managed},${tenant},${config.labelPrefix}/project=${target.project.slug}`,
    sharedSelector: managed,
    kinds: [
      { apiVersion: kueue, kind: "LocalQueue" },
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding" },
      { apiVersion: "v1", kind: "ServiceAccount" },
      { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy" },
      { apiVersion: "v1", kind: "LimitRange" },
      { apiVersion: "v1", kind: "ResourceQuota" },
    ],
  };
}

export function refOf(o: { apiVersion: string; kind: string; metadata?: { name?: string; namespace?: string } }): ObjectRef {
  const ref: ObjectRef = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata?.name ?? "" };
  if (o.metadata?.namespace) ref.namespace = o.metadata.namespace;
  return ref;
}

/** One key per object: kind, namespace and name (our kinds are unique by kind across API groups). */
export const identityOf = (r: { kind: string; namespace?: string | null; name: string }) => `${r.kind}/${r.namespace ?? ""}/${r.name}`;
