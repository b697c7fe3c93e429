// Writes the portal's ClusterRole (deploy/base/clusterrole.yaml) from lib/cluster/permissions.ts:
// `npm run deploy:rbac` after changing that list. permissions.test.ts fails until the file matches.
import fs from "node:fs";
import path from "node:path";
import { PORTAL_CLUSTER_ROLE_FILE, portalClusterRoleYaml } from "@/lib/cluster/portal-rbac";

const file = path.join(import.meta.dirname, "..", PORTAL_CLUSTER_ROLE_FILE);
fs.writeFileSync(file, portalClusterRoleYaml());
console.log(`Wrote ${path.relative(process.cwd(), file)}.`);
