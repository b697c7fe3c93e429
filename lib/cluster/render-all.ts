import fs from "node:fs/promises";
import path from "node:path";
import { asc } from "drizzle-orm";
import type { Database } from "@/db/client";
import { tenants } from "@/db/schema";
import type { ClusterSettings } from "@/lib/config";
import { loadDesiredPlatform, loadDesiredTenant } from "./desired-from-db";
import type { ClusterObject } from "./render-project";
import { renderLayout } from "./render-layout";
import { platformTargetOf, renderTarget, targetOf } from "./targets";

const MARKER = ".allot-render";

/**
 * The desired state of the platform (its Kueue ResourceFlavors, which every
 * tenant's queues name) and of every tenant as files (laid out by render-layout.ts:
 * Namespaces, then cluster-scoped objects, then one folder per namespace,
 * and a kustomization). Paths and contents depend only on the database, so
 * re-rendering an unchanged state gives identical files (a clean Git diff).
 */
export async function renderAllToFiles(db: Database, settings: ClusterSettings, now: Date): Promise<{ files: Map<string, string>; objects: number }> {
  const objects: ClusterObject[] = [...(await renderTarget(platformTargetOf(await loadDesiredPlatform(db, settings)), settings.render))];
  for (const { id } of await db.select({ id: tenants.id }).from(tenants).orderBy(asc(tenants.slug))) {
    const loaded = await loadDesiredTenant(db, id, settings, now);
    if (!loaded) continue;
    objects.push(...(await renderTarget(targetOf(loaded, null)!, settings.render)));
    for (const p of loaded.projects) objects.push(...(await renderTarget(targetOf(loaded, p.id)!, settings.render)));
  }
  return { files: renderLayout(objects), objects: objects.length };
}

export class RenderDirectoryError extends Error {}

/**
 * Write the files under `dir`, replacing an earlier render there (recognised
 * by its marker file) so objects no longer desired disappear too. A directory
 * holding anything else is refused rather than overwritten.
 */
export async function writeRender(dir: string, files: Map<string, string>): Promise<void> {
  const existing = await fs.readdir(dir).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? null : Promise.reject(e)));
  if (existing && existing.length > 0) {
    if (!existing.includes(MARKER)) throw new RenderDirectoryError(`${dir} is not empty and holds no earlier render (${MARKER} missing); choose an empty or new directory.`);
    for (const entry of existing) if (entry !== ".git") await fs.rm(path.join(dir, entry), { recursive: true, force: true });
  }
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, MARKER), "Rendered by `allot render`; this directory is replaced on every render.\n");
  for (const [file, content] of files) {
    await fs.mkdir(path.join(dir, path.dirname(file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), content);
  }
}
