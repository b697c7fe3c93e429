import { z } from "zod";
import { fieldErrorsOf } from "@/lib/auth/command";
import { RESOURCE_KEY_PATTERN, resourceKind } from "./units";
import { resolveWindow, spendQueryInput, type ResolvedWindow } from "./window";
import { FILL_IN, NOT_NEGATIVE, parseInput } from "@/lib/input/messages";

/**
 * Inputs of the usage push API (POST /api/v1/usage) and of the spend
 * queries and exports. A push is a batch of hourly samples, each naming its
 * tenant and project by slug; one bad sample refuses the whole batch, with
 * the field named by its index ("samples.3.hour"), before anything is written.
 *
 * The schema is parsed for every sample of batches of up to 10,000, so it
 * keeps to plain checks (no database, no clock): whether an hour is in the
 * future or too old depends on the instant of the request and is checked by
 * sampleTimeProblems, with the same field names.
 */
export const MAX_SAMPLES_PER_BATCH = 10_000;
/** Samples for hours older than this are refused: spend that old has been reported and exported. */
export const MAX_SAMPLE_AGE_DAYS = 400;
/** The database's own bound on a quantity (usage_hourly_quantity). */
export const MAX_QUANTITY = 1e12;

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** An ISO 8601 instant with a time zone: 2026-03-02T10:00:00Z, 2026-03-02T12:00:00.000+02:00. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
/** Slugs only address; one that names nothing is a 404 like any project out of reach. */
const SLUG_REF = /^[a-z0-9][a-z0-9-]{0,63}$/;

const SAMPLE_FIELDS = new Set(["tenant", "project", "resource", "hour", "quantity", "requested", "used", "gpuUtilization"]);
/** The resources whose quantity may be left out: then max(requested, used), as the cost model counts them. */
const FROM_REQUEST_AND_USE = new Set(["cpu", "memory"]);

const MESSAGES = {
  slug: "Enter a slug (lower-case letters, digits and hyphens).",
  resource: 'Enter "gpu:<model>", "cpu", "memory", "storage", "inference" or a custom meter key (lower-case letters, digits, _ . -).',
  hourFormat: "Enter an ISO 8601 instant with a time zone, e.g. 2026-03-02T10:00:00Z.",
  onTheHour: "Enter an instant on the hour (the start of the hour the sample covers).",
} as const;

const amount = z
  .number({ message: "Enter a number." })
  .min(0, NOT_NEGATIVE)
  .lt(MAX_QUANTITY, "Enter a number below 1e12.");

/**
 * One sample as documented. The object and its fields are checked by zod's
 * own (fast) checks here; the formats of the strings and the rules between
 * fields are checked in one pass over the batch (pushUsageInput), which is
 * several times faster than per-sample refinements at 10,000 samples.
 */
export const usageSampleInput = z
  .looseObject({
    tenant: z.string({ message: FILL_IN }).max(64, MESSAGES.slug).meta({ pattern: SLUG_REF.source, description: "Tenant slug" }),
    project: z.string({ message: FILL_IN }).max(64, MESSAGES.slug).meta({ pattern: SLUG_REF.source, description: "Project slug" }),
    resource: z
      .string({ message: FILL_IN })
      .max(70, MESSAGES.resource)
      .meta({
        pattern: RESOURCE_KEY_PATTERN.source,
        description: 'Rate card key: "gpu:<model>" (e.g. gpu:H100, gpu:A100 1g.10gb), "cpu", "memory", "storage", "inference", or a custom meter key',
      }),
    hour: z
      .string({ message: "Enter the hour: an ISO 8601 instant on the hour, e.g. 2026-03-02T10:00:00Z." })
      .max(40, MESSAGES.hourFormat)
      .meta({
        format: "date-time",
        description: "The start of the hour the sample covers, on the hour (UTC or with an offset); not in the future, at most 400 days ago",
      }),
    quantity: amount
      .optional()
      .describe(
        "In consumed units: GPU-hours, core-hours, GiB-hours (memory, storage), requests (inference), units (custom). For cpu and memory it may be left out: then max(requested, used). Given, it is stored as is.",
      ),
    requested: amount.nullish().describe("cpu and memory: what the workloads requested over the hour (core-hours, GiB-hours)"),
    used: amount.nullish().describe("cpu and memory: what they used over the hour"),
    gpuUtilization: z
      .number({ message: "Enter a number from 0 to 1." })
      .min(0, "Enter a number from 0 to 1.")
      .max(1, "Enter a number from 0 to 1.")
      .nullish()
      .describe("GPU resources only: the average busy fraction (0–1) of the allocated GPUs over the hour, e.g. from DCGM"),
  })
  .meta({ additionalProperties: false });

/** A sample as stored: the hour parsed, the quantity decided. */
export type PushedSample = {
  tenant: string;
  project: string;
  resource: string;
  hour: Date;
  quantity: number;
  requested: number | null;
  used: number | null;
  gpuUtilization: number | null;
};

type RawSample = z.output<typeof usageSampleInput>;

/** Date.parse rolls 2026-02-30 over into March; a sample naming a day that does not exist is refused instead. */
function realDate(iso: string): boolean {
  const y = Number(iso.slice(0, 4));
  const m = Number(iso.slice(5, 7));
  const d = Number(iso.slice(8, 10));
  return m >= 1 && m <= 12 && d >= 1 && new Date(Date.UTC(y, m - 1, d)).getUTCDate() === d;
}

/** The map under `key`, made empty when missing. */
function inner<K, IK, IV>(map: Map<K, Map<IK, IV>>, key: K): Map<IK, IV> {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = new Map<IK, IV>()));
  return value;
}

/**
 * The checks of a whole batch in one pass, building the samples as stored:
 * slugs, resource keys, hours on the hour, unknown fields, a quantity (or for
 * cpu and memory requested/used), utilisation on GPUs only, and no (tenant,
 * project, resource, hour) twice. Returns null when it added issues.
 */
function checkedSamples(samples: readonly RawSample[], ctx: z.RefinementCtx): PushedSample[] | null {
  let ok = true;
  const issue = (i: number, field: string, message: string) => {
    ok = false;
    ctx.addIssue({ code: "custom", path: ["samples", i, field], message });
  };
  // tenant → project → resource → hour (ms) → index: no key strings built per sample (several times faster at 10,000).
  const seen = new Map<string, Map<string, Map<string, Map<number, number>>>>();
  const out = new Array<PushedSample>(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    for (const key in s) if (!SAMPLE_FIELDS.has(key)) issue(i, key, "Leave this out: it is not a sample field.");
    if (!SLUG_REF.test(s.tenant)) issue(i, "tenant", MESSAGES.slug);
    if (!SLUG_REF.test(s.project)) issue(i, "project", MESSAGES.slug);
    const resourceOk = RESOURCE_KEY_PATTERN.test(s.resource);
    if (!resourceOk) issue(i, "resource", MESSAGES.resource);
    const ms = ISO_INSTANT.test(s.hour) && realDate(s.hour) ? Date.parse(s.hour) : Number.NaN;
    if (Number.isNaN(ms)) issue(i, "hour", MESSAGES.hourFormat);
    else if (ms % HOUR_MS !== 0) issue(i, "hour", MESSAGES.onTheHour);
    if (resourceOk) {
      if (s.quantity === undefined) {
        if (!FROM_REQUEST_AND_USE.has(s.resource)) issue(i, "quantity", FILL_IN);
        else if (s.requested == null && s.used == null) issue(i, "quantity", "Enter the quantity, or requested and/or used (quantity = the larger).");
      }
      if (s.gpuUtilization != null && resourceKind(s.resource) !== "gpu") issue(i, "gpuUtilization", "Leave this out: it is for GPU resources (gpu:<model>) only.");
    }
    // Which of two figures for the same hour counts would be arbitrary: name both.
    if (!Number.isNaN(ms)) {
      const hours = inner(inner(inner(seen, s.tenant), s.project), s.resource);
      const first = hours.get(ms);
      if (first === undefined) hours.set(ms, i);
      else issue(i, "hour", `Send each hour once: this repeats sample ${first} (the same tenant, project, resource and hour).`);
    }
    if (ok) {
      out[i] = {
        tenant: s.tenant,
        project: s.project,
        resource: s.resource,
        hour: new Date(ms),
        quantity: s.quantity ?? Math.max(s.requested ?? 0, s.used ?? 0),
        requested: s.requested ?? null,
        used: s.used ?? null,
        gpuUtilization: s.gpuUtilization ?? null,
      };
    }
  }
  return ok ? out : null;
}

export const pushUsageInput = z
  .strictObject({
    samples: z
      .array(usageSampleInput, { message: "Send a list of samples." })
      .min(1, "Send at least one sample.")
      .max(MAX_SAMPLES_PER_BATCH, `Send at most ${MAX_SAMPLES_PER_BATCH.toLocaleString("en")} samples at once, in more batches.`)
      .describe(`Up to ${MAX_SAMPLES_PER_BATCH.toLocaleString("en")} hourly samples; each (tenant, project, resource, hour) at most once`),
  })
  .transform((input, ctx) => {
    const samples = checkedSamples(input.samples, ctx);
    return samples ? { samples } : z.NEVER;
  });

export type PushUsageInput = z.output<typeof pushUsageInput>;

/**
 * Hours the request's instant rules out, by field ("samples.3.hour"), or null
 * when every hour is acceptable: not after `now` (the hour in progress may be
 * sent, and sent again when it is complete), not older than 400 days, and
 * not before `retainedFrom` (the usage retention's horizon, retention.ts):
 * a sample for a month retention dropped would bring back part of it.
 */
export function sampleTimeProblems(samples: readonly { hour: Date }[], now: Date, retainedFrom: Date | null = null): Record<string, string[]> | null {
  const latest = now.getTime();
  const earliest = latest - MAX_SAMPLE_AGE_DAYS * DAY_MS;
  const kept = retainedFrom?.getTime() ?? Number.NEGATIVE_INFINITY;
  let problems: Record<string, string[]> | null = null;
  for (let i = 0; i < samples.length; i++) {
    const t = samples[i]!.hour.getTime();
    if (t > latest) (problems ??= {})[`samples.${i}.hour`] = ["Enter an hour that is not in the future."];
    else if (t < earliest) (problems ??= {})[`samples.${i}.hour`] = [`Enter an hour within the last ${MAX_SAMPLE_AGE_DAYS} days.`];
    else if (t < kept) {
      (problems ??= {})[`samples.${i}.hour`] = [`Enter an hour from ${retainedFrom!.toISOString().slice(0, 10)} on: usage before it is no longer kept (ALLOT_USAGE_RETENTION_MONTHS).`];
    }
  }
  return problems;
}

// ---------------------------------------------------------------- spend queries and exports

/**
 * The window asked for by a query string (the spend API's and the portal
 * exports'), or the problems by field. Only range, from, to and granularity
 * are read (format and anything else are the caller's); empty ones count as
 * left out, as a form submits them.
 */
export function spendWindowOf(search: URLSearchParams, now: Date): { window: ResolvedWindow } | { errors: Record<string, string[]> } {
  const query: Record<string, string> = {};
  for (const name of ["range", "from", "to", "granularity"]) {
    const value = search.get(name);
    if (value) query[name] = value;
  }
  const parsed = parseInput(spendQueryInput, query);
  if (!parsed.success) return { errors: fieldErrorsOf(parsed.error) };
  return resolveWindow(parsed.data, now);
}
