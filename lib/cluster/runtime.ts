import type { ClusterSettings } from "@/lib/config";
import { clusterConnection, kubeClientFromConfig, type ClusterClient } from "./kube-client";

export interface ClusterRuntime {
  mode: "live" | "record-only";
  /** The API server URL in live mode. */
  server: string | null;
  client: ClusterClient | null;
}

const globalForCluster = globalThis as unknown as { allotClusterRuntime?: ClusterRuntime };

/**
 * Live when KUBECONFIG or an in-cluster service account is present (and
 * ALLOT_CLUSTER_MODE is not record-only); otherwise record-only: changes are
 * rendered, validated and stored as plans, and nothing is sent anywhere.
 */
export function clusterRuntime(settings: ClusterSettings, env: NodeJS.ProcessEnv = process.env): ClusterRuntime {
  if (globalForCluster.allotClusterRuntime) return globalForCluster.allotClusterRuntime;
  const connection = settings.mode === "record-only" ? ({ mode: "record-only" } as const) : clusterConnection(env);
  globalForCluster.allotClusterRuntime =
    connection.mode === "live"
      ? { mode: "live", server: connection.server, client: kubeClientFromConfig(connection.kubeConfig) }
      : { mode: "record-only", server: null, client: null };
  return globalForCluster.allotClusterRuntime;
}
