import path from "node:path";
import { expect, test } from "@playwright/test";
import { HomePage } from "./pages/home-page";
import { ProjectPage } from "./pages/project-page";
import { ShareNowCard } from "./pages/share-now-card";
import { SignInPage } from "./pages/sign-in-page";
import { saveScreenshot } from "./support/checks";
import { KUBE_API_URL, SCREENSHOT_DIR } from "./support/env";
import { applyWorkload, clusterQueuePath, getObject, localQueuePath, pendingWorkloads, setClusterQueueStatus, waitForObjects, type KubeObject, type WorkloadSpec } from "./support/kueue";
import { PERSONAS, SIGNED_OUT } from "./support/personas";
import { DEMO_WORKLOADS, type DemoWorkload } from "../lib/demo/workloads";

/**
 * The journey: a data scientist sees a pending workload and borrowed
 * GPUs. The portal here is the live one (playwright.config.ts), connected to
 * the stand-in API server; its worker has applied the demo's Kueue objects
 * there, and this journey plays Kueue: it admits some of Dana's workloads,
 * leaves others waiting with the scheduler's message, and sets the
 * ClusterQueues' status. What Dana sees must agree with that state: the plan
 * with the queues' spec, in use and borrowed with their status, the waiting
 * workloads and their places with Kueue's visibility API.
 */

const TENANT = "Vision Lab";
const PROJECT = "Detector training";
const NAMESPACE = "vision-lab--detector-training";
const GUARANTEED_QUEUE = NAMESPACE;
const BURST_QUEUE = `${NAMESPACE}.burst`;
const H100 = "h100";
const GPU = "nvidia.com/gpu";

const PRIORITY = { training: 500, preemptible: 100 } as const;
const workload = (w: DemoWorkload): WorkloadSpec => ({
  namespace: NAMESPACE,
  name: w.name,
  queueName: w.queueName,
  priorityClassName: `vision-lab-${w.tier}`,
  priority: PRIORITY[w.tier],
  gpus: w.gpus,
  cpu: w.cpu,
  memory: w.memory,
});
/** The demo story's workloads (lib/demo/workloads.ts): training fills the guarantee; the sweeps borrow H100s with CPU and memory beside them. */
const TRAINING_SHAPE = DEMO_WORKLOADS.find((w) => w.queueName === "default")!;
const TRAINING = workload(TRAINING_SHAPE);
const SWEEP_SHAPES = DEMO_WORKLOADS.filter((w) => w.queueName === "preemptible");
const SWEEPS = SWEEP_SHAPES.map(workload);
const gib = (memory: string) => Number(memory.replace(/Gi$/, ""));
const SWEEP = { cpu: Number(SWEEP_SHAPES[0]!.cpu), memoryGiB: gib(SWEEP_SHAPES[0]!.memory) };
/** The Kueue scheduler's messages, as it writes them on QuotaReserved=False. */
const NO_IDLE_GPUS = `couldn't assign flavors to pod set main: insufficient unused quota for ${GPU} in flavor ${H100}, 4 more needed`;
const BURST_REACHED = `couldn't assign flavors to pod set main: borrowing limit for ${GPU} in flavor ${H100} exceeded`;
/** The same in the words Dana reads (lib/quota/wait-reason.ts), the flavour named as her quota names it. */
const NO_IDLE_GPUS_WORDS = "It waits for 4 more GPUs of H100 to come free: what the project holds is in use and nothing idle can be borrowed right now. It starts when running work finishes or idle quota appears.";
const BURST_REACHED_WORDS = "Starting it would borrow more GPUs of H100 than the project's burst limit allows: it waits until the project's other borrowed work finishes (or the burst limit is raised).";

const DEFAULT_FLAVOUR = "default";
const h100Use = (total: number, borrowed: number) => [{ name: H100, resources: [{ name: GPU, total: String(total), borrowed: String(borrowed) }] }];
const computeUse = (cpu: string, memory: string, borrowed = false) => [
  { name: DEFAULT_FLAVOUR, resources: [{ name: "cpu", total: cpu, borrowed: borrowed ? cpu : "0" }, { name: "memory", total: memory, borrowed: borrowed ? memory : "0" }] },
];
/** What n sweeps reserve in the burst queue: 4 borrowed H100 each, with their CPU and memory, all borrowed. */
const sweepsUse = (n: number) => [...computeUse(String(n * SWEEP.cpu), `${n * SWEEP.memoryGiB}Gi`, true), ...h100Use(4 * n, 4 * n)];

/** A flavour's quota for one resource in a ClusterQueue's spec, as the portal rendered it. */
function quotaIn(queue: KubeObject, flavor: string, resource: string): { nominalQuota?: string; borrowingLimit?: string } {
  const groups = (queue.spec?.resourceGroups ?? []) as { flavors: { name: string; resources: { name: string; nominalQuota?: string; borrowingLimit?: string }[] }[] }[];
  const found = groups.flatMap((g) => g.flavors).find((f) => f.name === flavor)?.resources.find((r) => r.name === resource);
  if (!found) throw new Error(`${queue.metadata.name} has no ${flavor} ${resource}`);
  return found;
}

test.describe("Dana, data scientist in Vision Lab, with the portal connected to a cluster", () => {
  test.use({ storageState: SIGNED_OUT });

  test("sees her GPUs in use, those borrowed beyond her guarantee, and the sweeps that wait with why and where", async ({ page }, testInfo) => {
    test.setTimeout(90_000);

    // The live portal's worker applies the demo to the cluster from its start.
    await waitForObjects([clusterQueuePath(GUARANTEED_QUEUE), clusterQueuePath(BURST_QUEUE), localQueuePath(NAMESPACE, "default"), localQueuePath(NAMESPACE, "preemptible")]);
    const guaranteed = Number(quotaIn(await getObject(clusterQueuePath(GUARANTEED_QUEUE)), H100, GPU).nominalQuota);
    const burst = Number(quotaIn(await getObject(clusterQueuePath(BURST_QUEUE)), H100, GPU).borrowingLimit);
    // The demo's plan (lib/demo/quota.ts): 8 H100 guaranteed, 8 more borrowed at most.
    expect([guaranteed, burst]).toEqual([8, 8]);

    // Kueue now: training fills the guarantee, one sweep runs on 4 borrowed GPUs, two sweeps wait for idle GPUs in the cohort.
    await applyWorkload(TRAINING, { admitted: true });
    await applyWorkload(SWEEPS[0]!, { admitted: true });
    for (const sweep of SWEEPS.slice(1)) await applyWorkload(sweep, { admitted: false, message: NO_IDLE_GPUS });
    await setClusterQueueStatus(GUARANTEED_QUEUE, { flavorsReservation: [...computeUse(TRAINING_SHAPE.cpu, TRAINING_SHAPE.memory), ...h100Use(guaranteed, 0)], pendingWorkloads: 0, reservingWorkloads: 1, admittedWorkloads: 1 });
    await setClusterQueueStatus(BURST_QUEUE, { flavorsReservation: sweepsUse(1), pendingWorkloads: 2, reservingWorkloads: 1, admittedWorkloads: 1 });
    const waiting = await pendingWorkloads(NAMESPACE, "preemptible");
    expect(waiting.map((w) => [w.metadata.name, w.positionInLocalQueue, w.positionInClusterQueue])).toEqual([
      ["sweep-lr-2", 0, 0],
      ["sweep-lr-3", 1, 1],
    ]);

    // Dana signs in and opens her project from the home page.
    const signIn = new SignInPage(page);
    await signIn.goto();
    await signIn.signInAs(PERSONAS.dana.name);
    const home = new HomePage(page);
    await home.projectItem(TENANT, PROJECT).getByRole("link", { name: PROJECT, exact: true }).click();
    await expect(new ProjectPage(page).heading).toHaveText(PROJECT);

    const share = new ShareNowCard(page);
    await expect(share.description).toContainText(`What Kueue holds for ${PROJECT}, read from ${KUBE_API_URL} at `);
    await expect(share.noClusterBadge).toHaveCount(0);
    // In use: 8 in the guarantee + 4 borrowed by the running sweep; nobody else borrows, so nothing is lent.
    expect(await share.line("H100", GPU)).toEqual({
      Flavour: "H100",
      Resource: GPU,
      Guaranteed: String(guaranteed),
      "Burst limit": `+${burst}`,
      "Others may borrow": "all unused",
      "In use": String(guaranteed + 4),
      Borrowed: "4",
      "Lent (est.)": "0",
    });
    // CPU and memory: training's in the guarantee, the running sweep's borrowed; storage is no Kueue resource, so it has no live figures.
    expect(await share.line("Any node", "CPU")).toMatchObject({ "In use": `${Number(TRAINING_SHAPE.cpu) + SWEEP.cpu} cores`, Borrowed: `${SWEEP.cpu} cores` });
    expect(await share.line("Any node", "Memory")).toMatchObject({ "In use": `${gib(TRAINING_SHAPE.memory) + SWEEP.memoryGiB} GiB`, Borrowed: `${SWEEP.memoryGiB} GiB` });
    expect(await share.line("Any node", "Storage")).toMatchObject({ "Burst limit": "—", "In use": "—", Borrowed: "—", "Lent (est.)": "—" });

    await expect(share.pendingHeading).toHaveText(`Waiting workloads (${waiting.length})`);
    await expect(share.pendingItems).toHaveCount(waiting.length);
    for (const [i, w] of waiting.entries()) {
      const item = share.pendingItems.nth(i);
      await expect(item).toContainText(w.metadata.name);
      await expect(item).toContainText("preemptible");
      await expect(item).toContainText("queue preemptible");
      // Kueue counts from 0, people from 1; alone in its ClusterQueue, the two places are one.
      await expect(item).toContainText(`#${w.positionInLocalQueue + 1} in its queue`);
      await expect(item).not.toContainText("in the cluster queue");
      await expect(item.getByText(`Why it waits: ${NO_IDLE_GPUS_WORDS}`, { exact: true })).toBeVisible();
      // Kueue's own message is one click away.
      await expect(item.getByText(NO_IDLE_GPUS, { exact: true })).toBeHidden();
      await item.getByText("Kueue’s message").click();
      await expect(item.getByText(NO_IDLE_GPUS, { exact: true })).toBeVisible();
    }
    await saveScreenshot(page, "share-now-live", testInfo);
    // On a phone the lines are short lists, the live figures first; nothing in the card is wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(share.table).toBeHidden();
    await expect(share.narrowLine("H100", GPU)).toContainText(`In use${guaranteed + 4}Borrowed4Lent (est.)0Guaranteed${guaranteed}Burst limit+${burst}`);
    await share.expectNoOverflow();
    await share.root.screenshot({ path: path.join(SCREENSHOT_DIR, "share-now-live-390-card.png") });
    await page.setViewportSize({ width: 1280, height: 720 });

    // Idle GPUs free up: Kueue admits the next sweep on 4 more borrowed; the last one now waits on the burst limit.
    await applyWorkload(SWEEPS[1]!, { admitted: true });
    await applyWorkload(SWEEPS[2]!, { admitted: false, message: BURST_REACHED });
    await setClusterQueueStatus(BURST_QUEUE, { flavorsReservation: sweepsUse(2), pendingWorkloads: 1, reservingWorkloads: 2, admittedWorkloads: 2 });
    const still = await pendingWorkloads(NAMESPACE, "preemptible");
    expect(still.map((w) => [w.metadata.name, w.positionInLocalQueue])).toEqual([["sweep-lr-3", 0]]);

    await page.reload();
    expect(await share.line("H100", GPU)).toMatchObject({ "In use": String(guaranteed + burst), Borrowed: String(burst), "Lent (est.)": "0" });
    await expect(share.pendingHeading).toHaveText("Waiting workloads (1)");
    await expect(share.pendingItems).toHaveCount(1);
    await expect(share.pendingItem("sweep-lr-3")).toContainText("#1 in its queue");
    await expect(share.pendingItem("sweep-lr-3").getByText(`Why it waits: ${BURST_REACHED_WORDS}`, { exact: true })).toBeVisible();
    await share.pendingItem("sweep-lr-3").getByText("Kueue’s message").click();
    await expect(share.pendingItem("sweep-lr-3").getByText(BURST_REACHED, { exact: true })).toBeVisible();
  });
});
