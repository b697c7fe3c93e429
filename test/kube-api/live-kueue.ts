import { afterAll, beforeAll } from "vitest";
import { kubeClientFromConfig, kubeConfigFor, type ClusterClient } from "@/lib/cluster/kube-client";
import { CLUSTER_PERMISSIONS } from "@/lib/cluster/permissions";
import type { ClusterRuntime } from "@/lib/cluster/runtime";
import { parseConfig, type AllotConfig } from "@/lib/config";
import { startStandInApiServer, type StandInApiServer } from "./server";

/** The portal's configuration with Kueue on, as the live Kueue tests run it. */
export const KUEUE_CONFIG = parseConfig({ ALLOT_KUEUE: "1" });

export interface LiveKueueStandIn {
  api: StandInApiServer;
  client: ClusterClient;
  live: ClusterRuntime;
}

/**
 * For one test file: the stand-in API server with the portal's RBAC enforced,
 * a live runtime on it, and Kueue on in the process's configuration for the
 * file's tests; the configuration is put back and the server closed after.
 * `ready` hands the pieces to the file's own variables once they exist.
 */
export function withLiveKueueStandIn(ready: (standIn: LiveKueueStandIn) => void): void {
  const globalConfig = globalThis as unknown as { allotConfig?: AllotConfig };
  let previousConfig: AllotConfig | undefined;
  let api: StandInApiServer | undefined;
  beforeAll(async () => {
    previousConfig = globalConfig.allotConfig;
    globalConfig.allotConfig = KUEUE_CONFIG;
    api = await startStandInApiServer({ permissions: CLUSTER_PERMISSIONS });
    const client = kubeClientFromConfig(kubeConfigFor(api.url), { timeoutMs: 1000 });
    ready({ api, client, live: { mode: "live", server: api.url, client } });
  });
  afterAll(async () => {
    globalConfig.allotConfig = previousConfig;
    await api?.close();
  });
}
