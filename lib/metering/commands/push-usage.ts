import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { defineCommand } from "@/lib/auth/command";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { ingestUsage, type UsageSample } from "../ingest";
import { pushUsageInput, sampleTimeProblems, type PushedSample } from "../inputs";
import { usageRetainedFrom } from "../retention";

/**
 * Usage pushed over REST by a service account holding the meter role on each
 * project it reports for (policy action "usage.push"). The batch is stored
 * under the source "push:<principal id>", so a retried batch replaces its own
 * earlier figures and never counts twice, and two meters of the same project
 * add up instead of overwriting each other.
 *
 * A batch may name several projects. The policy is asked for every distinct
 * one, in the `target` step, before anything is written; the first project
 * stands for the batch in executeCommand's own check, which therefore only
 * repeats a decision already made. A project that does not exist and one the
 * caller does not meter answer alike (404 naming the first sample that names
 * it), so a meter learns nothing about projects outside its grants.
 *
 * Slugs are resolved once per distinct (tenant, project) pair, in one query,
 * never per sample: batches of 10,000 samples cost one lookup and one ingest
 * statement.
 */

const pushSourceOf = (principalId: string): string => `push:${principalId}`;

type ProjectRef = { tenantId: string; projectId: string };
/** tenant slug → project slug → value: looked up per sample without building key strings. */
type BySlugs<V> = Map<string, Map<string, V>>;

function put<V>(map: BySlugs<V>, tenant: string, project: string, value: V): void {
  let projects = map.get(tenant);
  if (!projects) map.set(tenant, (projects = new Map<string, V>()));
  if (!projects.has(project)) projects.set(project, value);
}

/** The projects a batch names, resolved and authorized; the first one stands for the batch in executeCommand's check. */
type UsageBatchTarget = { kind: "project"; tenantId: string; projectId: string; projects: BySlugs<ProjectRef> };

async function projectsBySlugs(db: Database, pairs: readonly { tenant: string; project: string }[]): Promise<BySlugs<ProjectRef>> {
  const rows = await rowsOf<{ tenant: string; project: string; tenant_id: string; project_id: string }>(
    db,
    sql`select t.slug as tenant, p.slug as project, t.id as tenant_id, p.id as project_id
      from jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) as q(tenant text, project text)
      join tenants t on t.slug = q.tenant
      join projects p on p.tenant_id = t.id and p.slug = q.project`,
  );
  const found: BySlugs<ProjectRef> = new Map();
  for (const r of rows) put(found, r.tenant, r.project, { tenantId: r.tenant_id, projectId: r.project_id });
  return found;
}

function refused(index: number, tenant: string, project: string): AppError {
  return new AppError("not_found", `Sample ${index}: there is no project ${tenant}/${project} you may push usage for.`, {
    [`samples.${index}.project`]: ["Name a project you may push usage for: it needs a meter grant for this service account."],
  });
}

/**
 * Resolve every distinct (tenant, project) of a batch in one query and ask
 * the policy about each, or refuse naming the first sample of the first
 * project out of reach (in the order of the batch).
 */
async function authorizeBatch(ctx: CommandContext, samples: readonly PushedSample[]): Promise<UsageBatchTarget> {
  const firstIndex: BySlugs<number> = new Map();
  const pairs: { tenant: string; project: string; index: number }[] = [];
  for (let i = 0; i < samples.length; i++) {
    const { tenant, project } = samples[i]!;
    if (firstIndex.get(tenant)?.has(project)) continue;
    put(firstIndex, tenant, project, i);
    pairs.push({ tenant, project, index: i });
  }
  const found = await projectsBySlugs(ctx.db, pairs.map(({ tenant, project }) => ({ tenant, project })));
  for (const pair of pairs) {
    const ref = found.get(pair.tenant)?.get(pair.project);
    if (!ref || !can(ctx.actor, "usage.push", { kind: "project", tenantId: ref.tenantId, projectId: ref.projectId }, ctx.now)) {
      throw refused(pair.index, pair.tenant, pair.project);
    }
  }
  const first = found.get(pairs[0]!.tenant)!.get(pairs[0]!.project)!;
  return { kind: "project", tenantId: first.tenantId, projectId: first.projectId, projects: found };
}

export const pushUsage = defineCommand({
  name: "pushUsage",
  input: pushUsageInput,
  async target(ctx, input) {
    const problems = sampleTimeProblems(input.samples, ctx.now, usageRetainedFrom(config().usageRetentionMonths, ctx.now));
    if (problems) throw new AppError("validation", "Some samples are outside the hours that may be pushed.", problems);
    return { action: "usage.push" as const, resource: await authorizeBatch(ctx, input.samples) };
  },
  async run(ctx, input, batch) {
    const samples = input.samples.map((s): UsageSample => {
      const ref = batch.projects.get(s.tenant)!.get(s.project)!;
      return {
        projectId: ref.projectId,
        tenantId: ref.tenantId,
        resource: s.resource,
        hour: s.hour,
        quantity: s.quantity,
        requested: s.requested,
        used: s.used,
        gpuUtilization: s.gpuUtilization,
      };
    });
    return ingestUsage(ctx.db, pushSourceOf(ctx.actor.principalId), samples, ctx.now);
  },
});
