import { stringify } from "yaml";

/**
 * Manifests as a multi-document YAML stream, in the order given (apply order),
 * the way kubectl apply -f and GitOps tools read them.
 */
export function manifestsToYaml(objects: readonly object[], header?: string): string {
  const docs = objects.map((o) => stringify(o, { lineWidth: 0, sortMapEntries: false }));
  const preamble = header ? `${header.split("\n").map((l) => `# ${l}`.trimEnd()).join("\n")}\n` : "";
  return preamble + docs.map((d) => `---\n${d}`).join("");
}

/**
 * Manifests as they are read back from a jsonb column have lost their key
 * order (jsonb stores keys shortest first: `kind`, `spec`, `metadata`,
 * `apiVersion`). For people reading or committing the YAML, put the keys back
 * in the order kubectl prints them: alphabetical, which puts apiVersion, kind,
 * metadata and spec first. Within metadata, name and namespace lead.
 */
export function readableManifest(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => readableManifest(v));
  if (value === null || typeof value !== "object") return value;
  const lead = key === "metadata" ? ["name", "namespace"] : [];
  const keys = Object.keys(value).sort((a, b) => {
    const la = lead.indexOf(a);
    const lb = lead.indexOf(b);
    if (la !== -1 || lb !== -1) return (la === -1 ? lead.length : la) - (lb === -1 ? lead.length : lb);
    return a < b ? -1 : a > b ? 1 : 0;
  });
  return Object.fromEntries(keys.map((k) => [k, readableManifest((value as Record<string, unknown>)[k], k)]));
}

/** Multi-document YAML of stored manifests, in the order given (apply order), keys in kubectl's order. */
export function storedManifestsToYaml(manifests: readonly object[], header?: string): string {
  return manifestsToYaml(
    manifests.map((m) => readableManifest(m) as object),
    header,
  );
}
