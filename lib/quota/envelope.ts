import { z } from "zod";
import { GiB, MAX } from "./amounts";
import { DEFAULT_FLAVOR, sumLines, type QuotaLine } from "./lines";
import { quantity, wholeNumber } from "@/lib/input/numbers";
import { FILL_IN, MORE_THAN_ZERO, NOT_NEGATIVE, atMostChars } from "@/lib/input/messages";

/**
 * A tenant's envelope: per (flavour, resource), the guarantee and burst the
 * platform approved for the whole tenant. Its admins divide the guarantee
 * among their projects and move it between them without a ticket; the sum of
 * the projects' granted guarantees stays within it. The starting quota every
 * project gets from the platform is outside the envelope. Pure: no I/O.
 */

export interface EnvelopeLine {
  flavor: string;
  resource: string;
  guarantee: number;
  burst: number;
}

/**
 * What people name a line by, in forms and the API: "cpu", "memory", or
 * "gpu:<model>" (the rate card's keys), so nobody types an extended resource
 * name. The GPU model's resource comes from the node pools.
 */
export type QuotaKey = "cpu" | "memory" | `gpu:${string}`;

export const quotaKeyInput = z
  .string({ message: FILL_IN })
  .trim()
  .max(110, atMostChars(110))
  // A pattern, not a refinement, so the OpenAPI document states it.
  .regex(/^(?:cpu|memory|gpu:\S(?:.*\S)?)$/, 'Enter "cpu", "memory" or "gpu:" and a GPU model, such as gpu:H100.')
  .transform((v) => v as QuotaKey);

export const keyOfLine = (l: { flavor: string; resource: string }): QuotaKey => (l.flavor === DEFAULT_FLAVOR ? (l.resource as "cpu" | "memory") : `gpu:${l.flavor}`);

/** The flavour and resource a key names, given the GPU models the pools serve (model -> resource); null when no pool offers the model. */
export function lineOfKey(key: QuotaKey, gpuResources: Readonly<Record<string, string>>): { flavor: string; resource: string } | null {
  if (key === "cpu" || key === "memory") return { flavor: DEFAULT_FLAVOR, resource: key };
  const model = key.slice(4);
  const resource = gpuResources[model];
  return resource ? { flavor: model, resource } : null;
}

/**
 * An amount as typed, before its line is known: a plain decimal or a
 * Kubernetes quantity (text), or a JSON number. Which unit and grammar apply
 * (whole GPUs, cores, GiB) depends on the line, so `parseLineAmount` reads it
 * once the line is known, with a message naming the field.
 */
export const amountText = z.union([
  z
    .string()
    .max(32, atMostChars(32))
    .regex(/^(?:\d+(?:\.\d+)?|\.\d+)(?:m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/, "Enter a plain number or a Kubernetes quantity such as 4, 500m or 64Gi."),
  z.number().min(0, NOT_NEGATIVE).max(Number.MAX_SAFE_INTEGER, "Enter a smaller amount."),
]);

const gpuAmount = wholeNumber("GPUs", { max: MAX.gpuCount });
const cpuAmount = quantity("CPU cores", { unit: 1, max: MAX.cpuCores, example: "a number of cores such as 4 or 500m" });
const memoryAmount = quantity("Memory (GiB)", { unit: GiB, max: MAX.memoryBytes, whole: true, example: "a number of GiB such as 64, or a quantity such as 64Gi" });

/** An amount typed for a line, in the line's unit (devices, cores, bytes); the error message is a sentence saying what to enter. */
export function parseLineAmount(key: QuotaKey, text: unknown): { ok: true; value: number } | { ok: false; message: string } {
  const schema = key === "cpu" ? cpuAmount : key === "memory" ? memoryAmount : gpuAmount;
  const r = schema.safeParse(text);
  return r.success ? { ok: true, value: r.data } : { ok: false, message: r.error.issues[0]?.message ?? "Enter a valid amount." };
}

/** What a project holds of the envelope's lines: its grants' lines in force (no starting quota), and the part of them that never ends. */
export interface ProjectHolding {
  projectId: string;
  slug: string;
  name: string;
  inForce: QuotaLine[];
  permanent: QuotaLine[];
}

export interface EnvelopeRow {
  line: EnvelopeLine;
  /** The sum of the projects' granted guarantees in force. */
  allocated: number;
  /** What the tenant admins can still give a project: guarantee − allocated (negative when an approval outgrew it). */
  unallocated: number;
  burstAllocated: number;
  byProject: { slug: string; name: string; guarantee: number; burst: number }[];
}

const amountOf = (lines: readonly QuotaLine[], l: { flavor: string; resource: string }, field: "guarantee" | "burst") =>
  sumLines(lines.filter((x) => x.flavor === l.flavor && x.resource === l.resource)).reduce((s, x) => s + x[field], 0);

/** Each envelope line with how it is divided among the projects. */
export function divideEnvelope(envelope: readonly EnvelopeLine[], projects: readonly ProjectHolding[]): EnvelopeRow[] {
  return envelope.map((line) => {
    const byProject = projects.map((p) => ({ slug: p.slug, name: p.name, guarantee: amountOf(p.inForce, line, "guarantee"), burst: amountOf(p.inForce, line, "burst") }));
    const allocated = tidy(line.resource, byProject.reduce((s, p) => s + p.guarantee, 0));
    return {
      line,
      allocated,
      unallocated: tidy(line.resource, line.guarantee - allocated),
      burstAllocated: tidy(line.resource, byProject.reduce((s, p) => s + p.burst, 0)),
      byProject,
    };
  });
}

const tidy = (resource: string, n: number) => (resource === "cpu" ? Math.round(n * 1000) / 1000 : n);

/**
 * Why a move of `amount` of a line from one project (or the unallocated part
 * of the envelope, null) to another (or back to it, null) cannot be made, or
 * null when it can. A project gives only what it holds permanently: a
 * time-bound grant's quota ends on its own, and moving it would leave the
 * project below nothing when it does.
 */
export function moveProblem(row: EnvelopeRow | undefined, from: ProjectHolding | null, to: ProjectHolding | null, amount: number): { field: string; message: string } | null {
  if (!row) return { field: "quota", message: "Choose a resource the tenant has an envelope for: ask the platform admins to set one, or request quota for a project." };
  if (from === null && to === null) return { field: "to", message: "Choose a project to give the quota to, or one to take it from." };
  if (from !== null && to !== null && from.projectId === to.projectId) return { field: "to", message: "Choose another project than the one the quota comes from." };
  if (amount <= 0) return { field: "amount", message: MORE_THAN_ZERO };
  if (from === null && amount > row.unallocated) return { field: "amount", message: `Enter at most what is unallocated in the envelope (${Math.max(0, row.unallocated)}).` };
  if (from !== null) {
    const held = amountOf(from.permanent, row.line, "guarantee");
    if (amount > held) return { field: "amount", message: `Enter at most what ${from.name} holds permanently (${Math.max(0, held)}).` };
  }
  return null;
}

/** The grant lines a move writes: a negative guarantee for the giver, a positive one for the receiver. */
export function moveLines(line: { flavor: string; resource: string }, amount: number): { taken: QuotaLine[]; given: QuotaLine[] } {
  return {
    taken: [{ flavor: line.flavor, resource: line.resource, guarantee: -amount, burst: 0, lendLimit: null }],
    given: [{ flavor: line.flavor, resource: line.resource, guarantee: amount, burst: 0, lendLimit: null }],
  };
}

/** An envelope cannot be set below what its projects already hold: the tenant admins move or the platform rejects first. */
export function envelopeProblem(row: Pick<EnvelopeRow, "allocated" | "burstAllocated"> | undefined, guarantee: number, burst: number): { field: string; message: string } | null {
  if (!row) return null;
  if (guarantee < row.allocated) return { field: "guarantee", message: `Enter at least what the tenant's projects already hold (${row.allocated}).` };
  if (burst < row.burstAllocated) return { field: "burst", message: `Enter at least the burst the tenant's projects already hold (${row.burstAllocated}).` };
  return null;
}

