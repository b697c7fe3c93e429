import { z } from "zod";

/**
 * Slugs address tenants and projects in URLs and the API, and together name
 * the project's Kubernetes namespace, so they follow DNS-1123 label rules and
 * leave room for each other inside 63 characters.
 */
export const TENANT_SLUG_MAX = 24;
export const PROJECT_SLUG_MAX = 32;

/** Tenant slugs that would produce namespaces owned by Kubernetes or the platform. */
export const RESERVED_TENANT_SLUGS = ["kube", "default", "kubernetes", "openshift", "allot", "system", "admin", "api"];

const label = (max: number) =>
  z
    .string({ message: "is required" })
    .trim()
    .min(2, "must be at least 2 characters")
    .max(max, `must be at most ${max} characters`)
    .regex(/^[a-z][a-z0-9-]*[a-z0-9]$/, "must be lower-case letters, digits and hyphens, starting with a letter and ending with a letter or digit")
    .refine((s) => !s.includes("--"), "must not contain two hyphens in a row");

export const tenantSlug = label(TENANT_SLUG_MAX).refine((s) => !RESERVED_TENANT_SLUGS.includes(s), "is reserved for the platform");
export const projectSlug = label(PROJECT_SLUG_MAX);

/** The namespace a project gets: stable once created (stored on the project row). */
export function namespaceFor(tenant: string, project: string): string {
  return `${tenant}--${project}`;
}

/** Suggest a slug from a display name ("Vision Lab" -> "vision-lab"). */
export function slugify(name: string, max: number): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .replace(/^[^a-z]+/, "")
    .slice(0, max)
    .replace(/-+$/, "");
}
