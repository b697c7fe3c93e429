import "server-only";
import { and, eq, inArray } from "drizzle-orm";
import { quotaRequests } from "@/db/schema";
import type { CommandContext } from "@/lib/auth/context";
import { can } from "@/lib/auth/policy";
import type { QuotaAmounts } from "./amounts";
import { monthlyCost, ratesInForce } from "./cost";
import { labelInstant, type InstantLabel } from "@/lib/format";
import { loadRates } from "./store";
import { describeAmounts } from "./view-helpers";

/** A time-bound grant the actor may extend now, with what the Extend dialog shows. */
export interface ExtensionOffer {
  grantId: string;
  amounts: QuotaAmounts;
  /** The amounts in one line ("2 × H100"), written here so the page's Extend button needs no formatting code in the browser. */
  label: string;
  endsAt: Date;
  /** The grant's amounts at the rate card now, a month: the dialog prices the added days with it. */
  monthly: number;
  /** An extension already waiting for this grant: the dialog is not offered, its request is linked instead. */
  pendingRequestId: string | null;
}

interface GrantLike {
  id: string;
  amounts: QuotaAmounts;
  startsAt: Date;
  endsAt: Date | null;
}

/**
 * The grants of a project that may be extended by this actor: time-bound,
 * not ended, on an open project of an active tenant, for someone the policy
 * lets ask (project.quota.extend). Empty for everyone else. The command
 * checks all of it again; this only decides what the pages offer.
 */
export async function extensionOffers(
  ctx: CommandContext,
  place: { tenantId: string; projectId: string; open: boolean },
  grants: readonly GrantLike[],
): Promise<Map<string, ExtensionOffer>> {
  const out = new Map<string, ExtensionOffer>();
  if (!place.open || !can(ctx.actor, "project.quota.extend", { kind: "project", tenantId: place.tenantId, projectId: place.projectId }, ctx.now)) return out;
  const open = grants.filter((g) => g.endsAt !== null && g.endsAt.getTime() > ctx.now.getTime());
  if (open.length === 0) return out;
  const [rateRows, waiting] = await Promise.all([
    loadRates(ctx.db),
    ctx.db
      .select({ id: quotaRequests.id, grantId: quotaRequests.extendsGrantId })
      .from(quotaRequests)
      .where(and(eq(quotaRequests.projectId, place.projectId), eq(quotaRequests.status, "pending"), inArray(quotaRequests.extendsGrantId, open.map((g) => g.id)))),
  ]);
  const prices = ratesInForce(rateRows, ctx.now);
  for (const g of open) {
    out.set(g.id, {
      grantId: g.id,
      amounts: g.amounts,
      label: describeAmounts(g.amounts),
      endsAt: g.endsAt!,
      monthly: monthlyCost(g.amounts, prices).monthly,
      pendingRequestId: waiting.find((w) => w.grantId === g.id)?.id ?? null,
    });
  }
  return out;
}

/** What the Extend button and dialog receive (components/quota/extend-grant.tsx): serialisable, the end labelled in the viewer's zone with UTC on hover. */
export interface ExtendOfferProps {
  grantId: string;
  label: string;
  endsAt: string;
  ends: InstantLabel;
  monthly: number;
  pendingRequestId: string | null;
}

export function extendOfferProps(offer: ExtensionOffer, zone: string): ExtendOfferProps {
  return { grantId: offer.grantId, label: offer.label, endsAt: offer.endsAt.toISOString(), ends: labelInstant(offer.endsAt, zone), monthly: offer.monthly, pendingRequestId: offer.pendingRequestId };
}
