import { Ajv, type ValidateFunction } from "ajv";
import { parse as parseCel } from "@marcbachmann/cel-js";
import crds from "./kueue-crd-schemas.json";

/**
 * Kueue objects checked the way the API server checks them: against the
 * openAPIV3Schema of Kueue's own CRDs (lib/cluster/kueue-crd-schemas.json,
 * made from a Kueue release by scripts/kueue-crd-schemas.mjs) and the CEL
 * rules (x-kubernetes-validations) those schemas carry. kueue.ts's hand rules
 * stay for what neither states (references between objects, readable
 * messages); this is the check that the CRDs themselves agree.
 *
 * Two things go beyond the API server on purpose:
 * - an unknown field is a problem, not pruned: a field Kueue does not know
 *   (a v1beta2 name sent as v1beta1, say) would be dropped silently and its
 *   feature with it;
 * - transition rules (those reading oldSelf) are skipped: they compare an
 *   update with the stored object, and a render has no stored object.
 */

type Schema = { [keyword: string]: unknown; properties?: Record<string, Schema>; items?: Schema; additionalProperties?: Schema | boolean };
interface CelRule {
  rule: string;
  message?: string;
}
interface CompiledRule {
  path: string[];
  message: string;
  check: (self: unknown) => unknown;
}

const schemas = crds.schemas as Record<string, Record<string, Schema>>;
export const KUEUE_CRD_SOURCE = crds.source;

/** additionalProperties: false wherever the CRD lists the fields and does not keep unknown ones. */
function closed(schema: Schema): Schema {
  const out: Schema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, closed(v)]));
    if (schema.additionalProperties === undefined && schema["x-kubernetes-preserve-unknown-fields"] !== true) out.additionalProperties = false;
  }
  if (schema.items) out.items = closed(schema.items);
  if (typeof schema.additionalProperties === "object") out.additionalProperties = closed(schema.additionalProperties);
  return out;
}

/** Every CEL rule of the schema, with the path of the value it is about ("*" for each item or map value). */
function celRules(schema: Schema, path: string[] = []): CompiledRule[] {
  const rules: CompiledRule[] = [];
  for (const r of (schema["x-kubernetes-validations"] as CelRule[] | undefined) ?? []) {
    if (/\boldSelf\b/.test(r.rule)) continue;
    const expression = parseCel(r.rule);
    rules.push({ path, message: r.message ?? `failed rule: ${r.rule}`, check: (self): unknown => expression({ self }) });
  }
  for (const [k, v] of Object.entries(schema.properties ?? {})) rules.push(...celRules(v, [...path, k]));
  if (schema.items) rules.push(...celRules(schema.items, [...path, "*"]));
  if (typeof schema.additionalProperties === "object") rules.push(...celRules(schema.additionalProperties, [...path, "*"]));
  return rules;
}

/** The values at a rule's path, with their printed paths (arrays and maps fan out at "*"). */
function valuesAt(value: unknown, path: readonly string[], at = ""): { at: string; value: unknown }[] {
  if (value === undefined || value === null) return [];
  if (path.length === 0) return [{ at, value }];
  const [head, ...rest] = path;
  if (head === "*") {
    if (Array.isArray(value)) return value.flatMap((v, i) => valuesAt(v, rest, `${at}[${i}]`));
    if (typeof value === "object") return Object.entries(value).flatMap(([k, v]) => valuesAt(v, rest, `${at}[${k}]`));
    return [];
  }
  if (typeof value !== "object" || Array.isArray(value)) return [];
  return valuesAt((value as Record<string, unknown>)[head!], rest, at ? `${at}.${head}` : head!);
}

interface KindCheck {
  validate: ValidateFunction;
  rules: CompiledRule[];
}
let checks: Map<string, KindCheck> | undefined;
function checkFor(apiVersion: string, kind: string): KindCheck | undefined {
  if (!checks) {
    // The CRDs use OpenAPI's keywords (nullable, x-kubernetes-*) and formats such as int32: not strict, no format checks.
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, logger: false });
    checks = new Map();
    for (const [version, kinds] of Object.entries(schemas))
      for (const [name, schema] of Object.entries(kinds)) checks.set(`${version}/${name}`, { validate: ajv.compile(closed(schema)), rules: celRules(schema) });
  }
  return checks.get(`${apiVersion}/${kind}`);
}

const where = (instancePath: string) => (instancePath ? instancePath.slice(1).replaceAll("/", ".") : "the object");

/** What the CRD of `apiVersion`/`kind` refuses in `object`; empty when it would be accepted. */
export function kueueSchemaProblems(object: object & { apiVersion?: unknown; kind?: unknown }): string[] {
  const check = checkFor(String(object.apiVersion), String(object.kind));
  if (!check) return [`the Kueue CRDs (${KUEUE_CRD_SOURCE}) have no ${String(object.apiVersion)} ${String(object.kind)}`];
  const problems: string[] = [];
  if (!check.validate(object)) {
    for (const e of check.validate.errors ?? []) {
      if (e.keyword === "additionalProperties") problems.push(`${where(e.instancePath)} has a field the CRD does not know: ${String(e.params.additionalProperty)}`);
      else if (e.keyword !== "anyOf" && e.keyword !== "if") problems.push(`${where(e.instancePath)} ${e.message ?? "is invalid"}`);
    }
  }
  for (const rule of check.rules) {
    for (const { at, value } of valuesAt(object, rule.path)) {
      let ok: unknown;
      try {
        ok = rule.check(value);
      } catch (e) {
        ok = false;
        problems.push(`${at || "the object"}: rule could not be evaluated (${e instanceof Error ? e.message : String(e)}): ${rule.message}`);
        continue;
      }
      if (ok !== true) problems.push(`${at || "the object"}: ${rule.message}`);
    }
  }
  return [...new Set(problems)];
}
