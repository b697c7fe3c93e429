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
