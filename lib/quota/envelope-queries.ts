import "server-only";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import { AppError } from "@/lib/errors";
import { tenantBySlug } from "@/lib/tenancy/lookup";
import { keyOfLine, type EnvelopeRow, type QuotaKey } from "./envelope";
import { gpuResourcesByModel, tenantEnvelope } from "./envelope-store";

export interface TenantEnvelopeView {
  tenantId: string;
  rows: (EnvelopeRow & { key: QuotaKey })[];
  /** Open projects, for the move form. */
  projects: { slug: string; name: string }[];
  /** Lines an envelope can be set for: CPU, memory and every GPU model the pools offer. */
  keys: QuotaKey[];
  canMove: boolean;
  canSet: boolean;
}

/** A tenant's envelope and how it is divided; throws not_found when out of reach (a foreign tenant and a missing one look the same). */
export async function tenantEnvelopeView(ctx: CommandContext, tenantSlug: string): Promise<TenantEnvelopeView> {
  const tenant = await tenantBySlug(ctx.db, tenantSlug);
  const resource = { kind: "tenant", tenantId: tenant.id } as const;
  if (!can(ctx.actor, "tenant.quota.view", resource, ctx.now)) throw new AppError("not_found");
  const [{ rows, holdings }, models] = await Promise.all([tenantEnvelope(ctx.db, tenant.id, ctx.now), gpuResourcesByModel(ctx.db)]);
  const active = tenant.status === "active";
  return {
    tenantId: tenant.id,
    rows: rows.map((r) => ({ ...r, key: keyOfLine(r.line) })),
    projects: holdings.map((h) => ({ slug: h.slug, name: h.name })),
    keys: ["cpu", "memory", ...Object.keys(models).sort().map((m) => `gpu:${m}` as const)],
    canMove: active && can(ctx.actor, "tenant.quota.move", resource, ctx.now),
    canSet: active && can(ctx.actor, "tenant.envelope.manage", resource, ctx.now),
  };
}
