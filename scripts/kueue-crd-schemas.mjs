#!/usr/bin/env node
// Regenerates lib/cluster/kueue-crd-schemas.json: the openAPIV3Schema of each
// Kueue kind Allot renders (ClusterQueue, Cohort, LocalQueue, ResourceFlavor,
// WorkloadPriorityClass), per served version (v1beta1, v1beta2), as a Kueue
// release's CRDs define them, so lib/cluster/kueue-schema.ts validates what we
// render the way the API server would. Descriptions and status are dropped (we
// never send status); everything else, CEL rules included, is kept as is.
//
//   node scripts/kueue-crd-schemas.mjs <dir with kueue.x-k8s.io_*.yaml> <kueue release, e.g. v0.19.2>
//
// The CRDs are config/components/crd/bases/ in a checkout of
// github.com/kubernetes-sigs/kueue at the release tag (Apache-2.0).
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";

const [dir, release] = process.argv.slice(2);
if (!dir || !release) {
  console.error("usage: node scripts/kueue-crd-schemas.mjs <crd dir> <kueue release>");
  process.exit(2);
}
const KINDS = ["clusterqueues", "cohorts", "localqueues", "resourceflavors", "workloadpriorityclasses"];

function strip(schema) {
  if (Array.isArray(schema)) return schema.map(strip);
  if (!schema || typeof schema !== "object") return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "description") continue;
    if (key === "properties") out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, strip(sub)]));
    else out[key] = strip(value);
  }
  return out;
}

const schemas = {};
for (const plural of KINDS) {
  const crd = parse(fs.readFileSync(path.join(dir, `kueue.x-k8s.io_${plural}.yaml`), "utf8"));
  const kind = crd.spec.names.kind;
  for (const version of crd.spec.versions) {
    if (!version.served) continue;
    const root = strip(version.schema.openAPIV3Schema);
    delete root.properties.status;
    schemas[`${crd.spec.group}/${version.name}`] ??= {};
    schemas[`${crd.spec.group}/${version.name}`][kind] = root;
  }
}
const out = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "lib", "cluster", "kueue-crd-schemas.json");
fs.writeFileSync(out, JSON.stringify({ source: `kubernetes-sigs/kueue ${release}, config/components/crd/bases (Apache-2.0)`, schemas }) + "\n");
console.log(`wrote ${out}: ${Object.entries(schemas).map(([v, kinds]) => `${v} ${Object.keys(kinds).join(", ")}`).join("; ")}`);
