import { z } from "zod";

/**
 * Shapes of API responses. Handlers may return richer rows; these schemas
 * decide what leaves the server (unknown keys are dropped) and document it.
 */
const isoDateTime = z.string().describe("ISO 8601 date-time, UTC");
const nullableDate = isoDateTime.nullable();

export const tenantOut = z.object({
  slug: z.string(),
  name: z.string(),
  isolationTier: z.enum(["shared", "dedicated"]),
  costCentre: z.string(),
  status: z.enum(["active", "disabled"]),
  createdAt: isoDateTime,
});

export const projectOut = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  namespace: z.string(),
  archivedAt: nullableDate,
  version: z.number().int(),
  createdAt: isoDateTime,
});

export const roleList = z.array(z.string()).describe("Roles the caller holds here, strongest first");

export const accessEntryOut = z.object({
  principalId: z.string(),
  displayName: z.string(),
  email: z.string().nullable(),
  kind: z.enum(["user", "service_account"]),
  role: z.string(),
  via: z.enum(["tenant membership", "project grant"]),
  collaborator: z.boolean(),
  expiresAt: nullableDate,
  grantedBy: z.string().nullable(),
});

export const memberOut = z.object({
  principalId: z.string(),
  displayName: z.string(),
  email: z.string().nullable(),
  kind: z.enum(["user", "service_account"]),
  role: z.enum(["tenant_admin", "member", "viewer"]),
  version: z.number().int().describe("Quote it when changing the role (optimistic locking)"),
  since: isoDateTime,
  disabled: z.boolean(),
});

export const invitationOut = z.object({
  invitationId: z.string(),
  email: z.string(),
  role: z.string(),
  path: z.string().describe("Path of the single-use acceptance link, relative to the portal"),
  expiresAt: isoDateTime,
  mailed: z.boolean(),
  grantExpiresAt: nullableDate.optional(),
});

export const collaboratorOut = z.object({
  grantId: z.string(),
  version: z.number().int(),
  principalId: z.string(),
  displayName: z.string(),
  email: z.string().nullable(),
  projectSlug: z.string(),
  projectName: z.string(),
  role: z.enum(["member", "viewer"]),
  expiresAt: nullableDate,
  expired: z.boolean(),
  sponsor: z.string().nullable(),
});

export const grantOut = z.object({
  id: z.string(),
  principalId: z.string(),
  role: z.enum(["member", "viewer"]),
  expiresAt: nullableDate,
  version: z.number().int(),
});

export const tokenOut = z.object({
  prefix: z.string(),
  createdAt: isoDateTime,
  expiresAt: nullableDate,
  lastUsedAt: nullableDate,
  revokedAt: nullableDate,
  state: z.enum(["active", "expired", "revoked"]),
});

export const serviceAccountOut = z.object({
  principalId: z.string(),
  name: z.string(),
  description: z.string(),
  createdBy: z.string().nullable(),
  createdAt: isoDateTime,
  disabled: z.boolean(),
  projectRoles: z.array(z.object({ grantId: z.string(), projectSlug: z.string(), projectName: z.string(), role: z.enum(["member", "viewer"]), expiresAt: nullableDate })),
  tokens: z.array(tokenOut).describe("Present for tenant admins; never includes the secret"),
});

export const newTokenOut = z.object({
  token: z.string().describe("The bearer token. Shown only in this response; store it now."),
  prefix: z.string(),
  createdAt: isoDateTime,
  expiresAt: nullableDate,
  previous: z.object({ prefix: z.string(), validUntil: isoDateTime }).optional(),
});

export const auditEventOut = z.object({
  seq: z.number().int(),
  at: isoDateTime,
  actorPrincipalId: z.string().nullable(),
  actorLabel: z.string(),
  tenantSlug: z.string().nullable(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string(),
  before: z.unknown(),
  after: z.unknown(),
  hash: z.string(),
});

export const okOut = z.object({ ok: z.literal(true) });
