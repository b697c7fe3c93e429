import fc from "fast-check";

/**
 * Samples from the OpenAPI document's JSON Schemas, for the validator-agreement
 * test (lib/api/openapi-validators.test.ts) and the fuzz suite
 * (test/api-fuzz.int.test.ts): values the document accepts (each documented
 * form, numbers at each bound) and values it refuses (one past each bound,
 * wrong types, hostile text), with a small checker for the keywords the
 * document uses. An unknown keyword throws, so the checker is never silently lax.
 */

export type JsonSchema = Record<string, unknown>;

const ANNOTATIONS = new Set(["description", "default", "examples", "title"]);
const KEYWORDS = new Set(["type", "enum", "const", "anyOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern", "format", "properties", "required", "additionalProperties", "items", "minItems", "maxItems", "propertyNames"]);
const FORMATS: Record<string, (text: string) => boolean> = {
  uuid: (t) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(t),
  email: (t) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(t),
  "date-time": (t) => /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(t) && !Number.isNaN(Date.parse(t)),
};

function typeOf(value: unknown): string[] {
  if (value === null) return ["null"];
  if (Array.isArray(value)) return ["array"];
  if (typeof value === "number") return Number.isInteger(value) ? ["integer", "number"] : ["number"];
  return [typeof value];
}

/** Whether the document's schema accepts the value. */
export function accepts(schema: JsonSchema, value: unknown): boolean {
  for (const key of Object.keys(schema)) if (!KEYWORDS.has(key) && !ANNOTATIONS.has(key)) throw new Error(`keyword ${key} is not checked`);
  if (schema.anyOf && !(schema.anyOf as JsonSchema[]).some((s) => accepts(s, value))) return false;
  if (schema.type !== undefined) {
    const types = ([] as string[]).concat(schema.type as string | string[]);
    if (!typeOf(value).some((t) => types.includes(t))) return false;
  }
  if (schema.enum && !(schema.enum as unknown[]).includes(value)) return false;
  if ("const" in schema && schema.const !== value) return false;
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) return false;
    if (typeof schema.maximum === "number" && value > schema.maximum) return false;
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) return false;
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) return false;
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof schema.minLength === "number" && length < schema.minLength) return false;
    if (typeof schema.maxLength === "number" && length > schema.maxLength) return false;
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) return false;
    if (typeof schema.format === "string" && !FORMATS[schema.format]!(value)) return false;
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) return false;
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) return false;
    if (schema.items && !value.every((v) => accepts(schema.items as JsonSchema, v))) return false;
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    if (schema.propertyNames && !Object.keys(record).every((k) => accepts(schema.propertyNames as JsonSchema, k))) return false;
    if (((schema.required ?? []) as string[]).some((k) => !(k in record))) return false;
    for (const [k, v] of Object.entries(record)) {
      if (properties[k]) {
        if (!accepts(properties[k], v)) return false;
      } else if (schema.additionalProperties === false) return false;
      else if (typeof schema.additionalProperties === "object" && !accepts(schema.additionalProperties as JsonSchema, v)) return false;
    }
  }
  return true;
}

const FUTURE = "2031-01-31T12:00:00.000Z";

function stringSamples(schema: JsonSchema): string[] {
  if (typeof schema.format === "string") {
    return { uuid: ["3f1c2a4e-9b7d-4c1e-8a2b-6d5e4f3a2b1c"], email: ["ada@example.com"], "date-time": [FUTURE, "2031-01-31"] }[schema.format] ?? [];
  }
  if (typeof schema.pattern === "string") {
    const matching = fc.sample(fc.stringMatching(new RegExp(schema.pattern, "u"), { size: "small" }), { numRuns: 200, seed: 42 });
    return [...new Set(matching.filter((s) => accepts(schema, s) && s.trim() === s && s !== ""))].slice(0, 3);
  }
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = (schema.maxLength as number | undefined) ?? 2_000;
  return [...new Set(["a".repeat(Math.max(min, Math.min(max, 3))), "a".repeat(max)])];
}

/** Values the schema accepts: each documented form, and numbers at each bound. */
export function validSamples(schema: JsonSchema): unknown[] {
  if (schema.anyOf) {
    const branches = schema.anyOf as JsonSchema[];
    const numeric = branches.find((b) => b.type === "integer" || b.type === "number");
    // A number field's text form is the same number as digits, within the same bounds: its samples are the numbers' text.
    const text = numeric ? validSamples(numeric).map(String) : [];
    return branches.flatMap((b) => (numeric && b.type === "string" ? text.filter((t) => accepts(b, t)) : validSamples(b))).filter((v) => accepts(schema, v));
  }
  if (schema.enum) return schema.enum as unknown[];
  if ("const" in schema) return [schema.const];
  const types = ([] as string[]).concat((schema.type as string | string[] | undefined) ?? []);
  return types
    .flatMap((type): unknown[] => {
      if (type === "string") return stringSamples(schema);
      if (type === "integer" || type === "number") {
        const min = (schema.minimum as number | undefined) ?? (typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : 0);
        const max = (schema.maximum as number | undefined) ?? (typeof schema.exclusiveMaximum === "number" ? schema.exclusiveMaximum - 1 : min + 1);
        return [...new Set([min, max, ...(type === "number" && max - min > 1 ? [min + 0.5] : [])])];
      }
      if (type === "boolean") return [true, false];
      if (type === "null") return [null];
      if (type === "array") return [Array.from({ length: Math.max(1, (schema.minItems as number | undefined) ?? 0) }, () => validSamples(schema.items as JsonSchema)[0])];
      if (type === "object") return [validObject(schema, "all")];
      return [];
    })
    .filter((v) => accepts(schema, v));
}

/** An object the schema accepts: its required fields (and, with "all", every field) at their first valid sample. */
export function validObject(schema: JsonSchema, which: "required" | "all"): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  // "One of these must be sent" is documented as anyOf of required sets: the first set is sent.
  const either = ((schema.anyOf ?? []) as JsonSchema[])[0]?.required as string[] | undefined;
  const required = new Set([...((schema.required ?? []) as string[]), ...(either ?? [])]);
  return Object.fromEntries(
    Object.entries(properties)
      .filter(([k]) => which === "all" || required.has(k))
      .map(([k, s]) => [k, validSamples(s)[0]]),
  );
}

/** Wrong types and forms every field is tried with: numbers written other ways, absurd sizes, text where a number goes. */
export const HOSTILE: unknown[] = [{ nested: true }, ["x"], true, 12345, 1.5, -1, "", "!", "not-a-member", "x".repeat(5_000), null, 2 ** 31, 2 ** 53, "1e3", "0x10", " 4 ", "4abc", "-1"];

/** Values the schema refuses: one past each bound, and the hostile set, kept only where the document refuses them. */
export function invalidSamples(schema: JsonSchema): unknown[] {
  const bounds: unknown[] = [];
  const collect = (s: JsonSchema) => {
    if (typeof s.maximum === "number") bounds.push(s.maximum + 1, s.maximum + 0.5);
    if (typeof s.minimum === "number") bounds.push(s.minimum - 1, s.minimum - 0.5);
    if (typeof s.exclusiveMinimum === "number") bounds.push(s.exclusiveMinimum);
    if (typeof s.exclusiveMaximum === "number") bounds.push(s.exclusiveMaximum);
    if (typeof s.maxLength === "number") bounds.push("a".repeat(s.maxLength + 1));
    if (typeof s.minLength === "number" && s.minLength > 0) bounds.push("a".repeat(s.minLength - 1));
    for (const branch of (s.anyOf ?? []) as JsonSchema[]) collect(branch);
  };
  collect(schema);
  return [...new Set([...bounds, ...HOSTILE])].filter((v) => !accepts(schema, v));
}

/**
 * Leniencies the server has on purpose, stated once: surrounding spaces are
 * trimmed, and "" or null in an optional field means it was left out (forms
 * send empty fields). A value refused by the document but accepted for one of
 * these reasons is not a disagreement.
 */
export function lenient(schema: JsonSchema, value: unknown, required: boolean): boolean {
  if (typeof value === "string" && value.trim() !== value && accepts(schema, value.trim())) return true;
  return !required && (value === "" || value === null);
}

/**
 * Key paths of a value that its schema does not document ("byTenant.0.idleChargedBack"):
 * an answer's field the OpenAPI document never mentions. Where the schema is
 * a union, the first branch that accepts the value is followed.
 */
export function undocumentedKeys(schema: JsonSchema, value: unknown, prefix = ""): string[] {
  if (schema.anyOf) {
    const branch = (schema.anyOf as JsonSchema[]).find((b) => accepts(b, value));
    return branch ? undocumentedKeys(branch, value, prefix) : [];
  }
  if (Array.isArray(value)) return schema.items ? value.flatMap((v, i) => undocumentedKeys(schema.items as JsonSchema, v, `${prefix}${i}.`)) : [];
  if (value === null || typeof value !== "object") return [];
  // A record (additionalProperties a schema, no properties): its keys are data, not fields.
  if (!schema.properties && typeof schema.additionalProperties === "object") return [];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => (properties[k] ? undocumentedKeys(properties[k], v, `${prefix}${k}.`) : [`${prefix}${k}`]));
}
