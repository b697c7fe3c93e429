import { badRequest } from "./errors";

/**
 * SCIM filters (RFC 7644 3.4.2.2): parsed into a tree, then evaluated against a
 * resource's JSON representation. Attribute names are case-insensitive, and so
 * are string comparisons (userName, emails and displayName are caseExact=false
 * in our schemas; ids compare equal either way).
 */
export type CompareOp = "eq" | "ne" | "co" | "sw" | "ew" | "gt" | "ge" | "lt" | "le";
export type Filter =
  | { kind: "compare"; path: string; op: CompareOp; value: string | number | boolean | null }
  | { kind: "present"; path: string }
  | { kind: "and" | "or"; left: Filter; right: Filter }
  | { kind: "not"; filter: Filter }
  /** `emails[type eq "work"]`: some element of the multi-valued attribute matches the inner filter. */
  | { kind: "valuePath"; path: string; filter: Filter };

type Token = { type: "word" | "string" | "(" | ")" | "[" | "]"; text: string };

const COMPARE_OPS = new Set<string>(["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le"]);
const CORE_URN_PREFIX = /^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i;

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) {
      i += 1;
    } else if ("()[]".includes(c)) {
      tokens.push({ type: c as "(", text: c });
      i += 1;
    } else if (c === '"') {
      let j = i + 1;
      let text = "";
      while (j < input.length && input[j] !== '"') {
        if (input[j] === "\\" && j + 1 < input.length) j += 1;
        text += input[j];
        j += 1;
      }
      if (j >= input.length) throw badRequest("invalidFilter", "The filter has a string without its closing quote.");
      tokens.push({ type: "string", text });
      i = j + 1;
    } else {
      let j = i;
      while (j < input.length && !/[\s()[\]"]/.test(input[j]!)) j += 1;
      tokens.push({ type: "word", text: input.slice(i, j) });
      i = j;
    }
  }
  return tokens;
}

/** An attribute path without the core schema URN, which clients may or may not send. */
export function normalizePath(path: string): string {
  return path.replace(CORE_URN_PREFIX, "");
}

export function parseFilter(input: string): Filter {
  const tokens = tokenize(input);
  let pos = 0;
  const peek = () => tokens[pos];
  const fail = (why: string): never => {
    throw badRequest("invalidFilter", `The filter ${JSON.stringify(input)} is not valid: ${why}.`);
  };
  const isWord = (t: Token | undefined, word: string) => t?.type === "word" && t.text.toLowerCase() === word;

  function parseOr(): Filter {
    let left = parseAnd();
    while (isWord(peek(), "or")) {
      pos += 1;
      left = { kind: "or", left, right: parseAnd() };
    }
    return left;
  }
  function parseAnd(): Filter {
    let left = parseUnary();
    while (isWord(peek(), "and")) {
      pos += 1;
      left = { kind: "and", left, right: parseUnary() };
    }
    return left;
  }
  function parseUnary(): Filter {
    const t = peek();
    if (isWord(t, "not")) {
      pos += 1;
      if (peek()?.type !== "(") fail("not must be followed by a parenthesised filter");
      return { kind: "not", filter: parseUnary() };
    }
    if (t?.type === "(") {
      pos += 1;
      const inner = parseOr();
      if (peek()?.type !== ")") fail("a parenthesis is not closed");
      pos += 1;
      return inner;
    }
    return parseAttributeExpression();
  }
  function parseAttributeExpression(): Filter {
    const t = peek();
    if (t?.type !== "word") return fail(t ? `expected an attribute name, found ${JSON.stringify(t.text)}` : "it ends too early");
    pos += 1;
    const path = normalizePath(t.text);
    if (!/^[A-Za-z$][\w$-]*(\.[A-Za-z$][\w$-]*)?$/.test(path)) fail(`${JSON.stringify(t.text)} is not an attribute name`);
    if (peek()?.type === "[") {
      pos += 1;
      const inner = parseOr();
      if (peek()?.type !== "]") fail("a [ is not closed");
      pos += 1;
      return { kind: "valuePath", path, filter: inner };
    }
    const opToken = peek();
    const op = opToken?.type === "word" ? opToken.text.toLowerCase() : "";
    pos += 1;
    if (op === "pr") return { kind: "present", path };
    if (!COMPARE_OPS.has(op)) return fail(`${opToken ? JSON.stringify(opToken.text) : "nothing"} is not an operator (eq, ne, co, sw, ew, gt, ge, lt, le, pr)`);
    const v = peek();
    pos += 1;
    if (v?.type === "string") return { kind: "compare", path, op: op as CompareOp, value: v.text };
    if (v?.type === "word") {
      const w = v.text.toLowerCase();
      if (w === "true" || w === "false") return { kind: "compare", path, op: op as CompareOp, value: w === "true" };
      if (w === "null") return { kind: "compare", path, op: op as CompareOp, value: null };
      if (/^-?\d+(\.\d+)?$/.test(w)) return { kind: "compare", path, op: op as CompareOp, value: Number(w) };
    }
    return fail(`the value after ${op} must be a quoted string, a number, true, false or null`);
  }

  const filter = parseOr();
  if (pos < tokens.length) fail(`unexpected ${JSON.stringify(tokens[pos]!.text)}`);
  return filter;
}

/** The value of a key in an object, its name matched case-insensitively (SCIM attribute names are). */
export function getAttribute(resource: unknown, name: string): unknown {
  if (typeof resource !== "object" || resource === null || Array.isArray(resource)) return undefined;
  const key = Object.keys(resource).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : (resource as Record<string, unknown>)[key];
}

/** Every value a (possibly dotted) path reaches; a multi-valued attribute yields each element's value. */
function valuesAt(resource: unknown, path: string): unknown[] {
  let current: unknown[] = [resource];
  for (const part of path.split(".")) {
    current = current.flatMap((node) => {
      const v = getAttribute(node, part);
      return v === undefined || v === null ? [] : Array.isArray(v) ? (v as unknown[]) : [v];
    });
  }
  return current;
}

function compare(actual: unknown, op: CompareOp, expected: string | number | boolean | null): boolean {
  if (expected === null) return op === "ne";
  if (typeof actual === "boolean" || typeof expected === "boolean") {
    const a = typeof actual === "string" ? actual.toLowerCase() === "true" : actual;
    return op === "eq" ? a === expected : op === "ne" ? a !== expected : false;
  }
  if (typeof actual === "number" && typeof expected === "number") {
    return { eq: actual === expected, ne: actual !== expected, gt: actual > expected, ge: actual >= expected, lt: actual < expected, le: actual <= expected, co: false, sw: false, ew: false }[op];
  }
  if (typeof actual !== "string") return op === "ne";
  const a = actual.toLowerCase();
  const e = String(expected).toLowerCase();
  return { eq: a === e, ne: a !== e, co: a.includes(e), sw: a.startsWith(e), ew: a.endsWith(e), gt: a > e, ge: a >= e, lt: a < e, le: a <= e }[op];
}

export function matchesFilter(resource: unknown, filter: Filter): boolean {
  switch (filter.kind) {
    case "and":
      return matchesFilter(resource, filter.left) && matchesFilter(resource, filter.right);
    case "or":
      return matchesFilter(resource, filter.left) || matchesFilter(resource, filter.right);
    case "not":
      return !matchesFilter(resource, filter.filter);
    case "present":
      return valuesAt(resource, filter.path).some((v) => v !== "" && !(Array.isArray(v) && v.length === 0));
    case "valuePath": {
      const elements = valuesAt(resource, filter.path);
      return elements.some((element) => matchesFilter(element, filter.filter));
    }
    case "compare": {
      const values = valuesAt(resource, filter.path);
      // A multi-valued attribute of complex values compares its "value" sub-attribute (emails eq "x").
      const flat = values.map((v) => (typeof v === "object" && v !== null ? getAttribute(v, "value") : v));
      if (filter.op === "ne") return flat.every((v) => compare(v, "ne", filter.value));
      return flat.some((v) => compare(v, filter.op, filter.value));
    }
  }
}

/**
 * An exact value the filter requires of one attribute (`userName eq "x"`, alone
 * or in an `and`), so the query can narrow by it in SQL before evaluating the
 * whole filter in memory: an IdP looks each user up this way.
 */
export function requiredEquality(filter: Filter, attribute: string): string | null {
  if (filter.kind === "compare" && filter.op === "eq" && filter.path.toLowerCase() === attribute.toLowerCase() && typeof filter.value === "string") return filter.value;
  if (filter.kind === "and") return requiredEquality(filter.left, attribute) ?? requiredEquality(filter.right, attribute);
  return null;
}
