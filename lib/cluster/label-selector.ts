/**
 * Label selectors as the API server's `labelSelector` query parameter takes
 * them: comma-joined requirements, all of which must hold.
 *
 *   k=v, k==v   label k is v
 *   k!=v        label k is absent or not v
 *   k           label k is present
 *   !k          label k is absent
 *   k in (a,b)  label k is a or b
 *   k notin (a,b)  label k is absent or neither a nor b
 */

type Requirement =
  | { op: "eq" | "neq"; key: string; value: string }
  | { op: "exists" | "absent"; key: string }
  | { op: "in" | "notin"; key: string; values: string[] };

export type LabelSelector = (labels: Record<string, string> | undefined) => boolean;

export class SelectorError extends Error {}

const KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Split on commas that are not inside a parenthesised set. */
function splitRequirements(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") depth--;
    else if (text[i] === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}

function checkKey(key: string, whole: string): string {
  if (!KEY.test(key)) throw new SelectorError(`invalid label key "${key}" in selector "${whole}"`);
  return key;
}

function checkValue(value: string, whole: string): string {
  if (!VALUE.test(value) || value.length > 63) throw new SelectorError(`invalid label value "${value}" in selector "${whole}"`);
  return value;
}

function parseRequirement(part: string, whole: string): Requirement {
  const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part);
  if (set) {
    const values = set[3]!.split(",").map((v) => checkValue(v.trim(), whole));
    return { op: set[2] as "in" | "notin", key: checkKey(set[1]!, whole), values };
  }
  const neq = /^([^=!\s]+)\s*!=\s*(\S*)$/.exec(part);
  if (neq) return { op: "neq", key: checkKey(neq[1]!, whole), value: checkValue(neq[2]!, whole) };
  const eq = /^([^=!\s]+)\s*==?\s*(\S*)$/.exec(part);
  if (eq) return { op: "eq", key: checkKey(eq[1]!, whole), value: checkValue(eq[2]!, whole) };
  if (part.startsWith("!")) return { op: "absent", key: checkKey(part.slice(1).trim(), whole) };
  return { op: "exists", key: checkKey(part, whole) };
}

/** Parses a selector (throws SelectorError on a malformed one); an empty selector matches everything. */
export function parseLabelSelector(text: string | null | undefined): LabelSelector {
  const whole = text ?? "";
  if (whole.trim() === "") return () => true;
  const requirements = splitRequirements(whole).map((part) => {
    if (part === "") throw new SelectorError(`empty requirement in selector "${whole}"`);
    return parseRequirement(part, whole);
  });
  return (labels = {}) =>
    requirements.every((r) => {
      const has = Object.prototype.hasOwnProperty.call(labels, r.key);
      const value = labels[r.key];
      switch (r.op) {
        case "eq":
          return has && value === r.value;
        case "neq":
          return !has || value !== r.value;
        case "exists":
          return has;
        case "absent":
          return !has;
        case "in":
          return has && r.values.includes(value!);
        case "notin":
          return !has || !r.values.includes(value!);
      }
    });
}
