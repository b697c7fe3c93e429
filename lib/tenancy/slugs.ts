import { z } from "zod";
import { FILL_IN, SLUG_RULE, atLeastChars, atMostChars } from "@/lib/input/messages";

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
    .string({ message: FILL_IN })
    .trim()
    .min(2, atLeastChars(2))
    .max(max, atMostChars(max))
    .regex(/^[a-z][a-z0-9-]*[a-z0-9]$/, SLUG_RULE)
    .refine((s) => !s.includes("--"), "Use at most one hyphen in a row.");

export const tenantSlug = label(TENANT_SLUG_MAX).refine((s) => !RESERVED_TENANT_SLUGS.includes(s), "Choose another slug: this one is reserved for the platform.");
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
