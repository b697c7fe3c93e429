import { toCsv } from "@/lib/csv";
import { decimalText, roundDecimal, sumMoney, toMinor } from "@/lib/money";
import type { IdleCostMode } from "./chargeback";
import { CONSUMED_UNIT, gpuModelOf, PRICING_UNIT, pricingDivisor, pricingOf, resourceKind, resourceLabel, type ResourceKind } from "./units";

/**
 * Spend as FinOps FOCUS (1.x) rows: one row per charge period, project and
 * resource, at the rate card (the portal knows no discounts or commitments,
 * so billed, effective, list and contracted cost are the same figure). The
 * tenant is the billing account (it is what a cost centre is charged for),
 * the project the sub account. Columns of our own carry the x_ prefix the
 * specification reserves for them.
 *
 * Pure: the rows come from focus-query.ts. Building the same rows twice gives
 * the same export, in the same order, and a (period, project, resource) never
 * appears twice, however the input was split.
 *
 * Precision: costs are sums of charge lines rounded to the currency's minor
 * unit (lib/money.ts), written in the CSV with exactly that many decimals
 * ("1234.50"); quantities are rounded to QUANTITY_DECIMALS (half away from
 * zero) and written without trailing zeros. No float noise reaches a file.
 */

/** Decimal places of every quantity in an export (ConsumedQuantity, PricingQuantity, x_UnpricedQuantity). */
export const QUANTITY_DECIMALS = 6;
const quantityOf = (n: number): number => roundDecimal(n, QUANTITY_DECIMALS);

export const FOCUS_SERVICE_NAME = "Allot";
/** Provider, publisher and invoice issuer: the platform itself (an internal chargeback). */
export const FOCUS_PROVIDER_NAME = "Allot";

/** FOCUS ServiceCategory allowed values that usage resources fall under. */
export type FocusServiceCategory = "Compute" | "Storage" | "AI and Machine Learning" | "Other";

export const SERVICE_CATEGORY: Record<ResourceKind, FocusServiceCategory> = {
  gpu: "Compute",
  cpu: "Compute",
  memory: "Compute",
  storage: "Storage",
  inference: "AI and Machine Learning",
  custom: "Other",
};

const RESOURCE_TYPE: Record<Exclude<ResourceKind, "custom">, string> = {
  gpu: "GPU",
  cpu: "CPU",
  memory: "Memory",
  storage: "Storage",
  inference: "Inference",
};

/** One (period, project, resource) of usage with its cost, as the query reads it. */
export interface FocusSourceRow {
  /** Inclusive start and exclusive end of the charge period (clipped to the export's window). */
  periodStart: Date;
  periodEnd: Date;
  tenantId: string;
  tenantSlug: string;
  tenantName: string;
  costCentre: string;
  projectId: string;
  projectSlug: string;
  projectName: string;
  resource: string;
  /** Consumed units (GPU-hours, core-hours, GiB-hours, requests). */
  quantity: number;
  /** At the rate in force each hour; quantity without a price adds nothing. */
  cost: number;
  /** Quantity that had no price on the rate card. */
  unpricedQuantity: number;
}

export interface FocusRow {
  BillingAccountId: string;
  BillingAccountName: string;
  BillingPeriodStart: string;
  BillingPeriodEnd: string;
  ChargePeriodStart: string;
  ChargePeriodEnd: string;
  /** Usage for metered use; Adjustment for idle capacity (focus-idle.ts says why). */
  ChargeCategory: FocusChargeCategory;
  /** Null: no row corrects a previously invoiced billing period (FOCUS's only other value is "Correction"). */
  ChargeClass: null;
  ChargeDescription: string;
  /** Null (empty in the CSV) when none of the row's quantity had a price: its cost is unknown, not zero. */
  BilledCost: number | null;
  EffectiveCost: number | null;
  ListCost: number | null;
  ContractedCost: number | null;
  BillingCurrency: string;
  /** Null on idle lines: idle capacity has no quantity consumed or priced (FOCUS requires both only for Usage and Purchase). */
  PricingQuantity: number | null;
  PricingUnit: string | null;
  ConsumedQuantity: number | null;
  ConsumedUnit: string | null;
  ServiceCategory: FocusServiceCategory;
  ServiceName: string;
  ProviderName: string;
  PublisherName: string;
  InvoiceIssuerName: string;
  /** Null on the platform's idle line (idle left apart belongs to no project). */
  SubAccountId: string | null;
  SubAccountName: string | null;
  ResourceType: string;
  Tags: Record<string, string>;
  x_Tenant: string | null;
  x_Project: string | null;
  x_GpuModel: string | null;
  /** Consumed quantity with no price on the rate card: its cost is missing from BilledCost. Null on idle lines. */
  x_UnpricedQuantity: number | null;
  /** Null on use; on idle lines how the idle is reported: "apart" (the platform's, charged to no one) or "chargeback" (charged to the project). */
  x_IdleCost: IdleCostMode | null;
}

/** FOCUS ChargeCategory values this export writes (FOCUS also allows Purchase, Tax and Credit, which the portal has none of). */
export type FocusChargeCategory = "Usage" | "Adjustment";

/** The columns in export order (the CSV header). */
export const FOCUS_COLUMN_NAMES = [
  "BillingAccountId",
  "BillingAccountName",
  "BillingPeriodStart",
  "BillingPeriodEnd",
  "ChargePeriodStart",
  "ChargePeriodEnd",
  "ChargeCategory",
  "ChargeClass",
  "ChargeDescription",
  "BilledCost",
  "EffectiveCost",
  "ListCost",
  "ContractedCost",
  "BillingCurrency",
  "PricingQuantity",
  "PricingUnit",
  "ConsumedQuantity",
  "ConsumedUnit",
  "ServiceCategory",
  "ServiceName",
  "ProviderName",
  "PublisherName",
  "InvoiceIssuerName",
  "SubAccountId",
  "SubAccountName",
  "ResourceType",
  "Tags",
  "x_Tenant",
  "x_Project",
  "x_GpuModel",
  "x_UnpricedQuantity",
  "x_IdleCost",
] as const satisfies readonly (keyof FocusRow)[];

/** FOCUS Date/Time: ISO 8601 in UTC, to the second ("2026-03-02T00:00:00Z"). */
export const focusDateTime = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, "Z");

export const resourceTypeOf = (resource: string): string => {
  const kind = resourceKind(resource);
  return kind === "custom" ? resource : RESOURCE_TYPE[kind];
};

export function monthBounds(at: Date): [Date, Date] {
  return [new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)), new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1))];
}

/** One FOCUS row from one source row. */
export function focusRow(r: FocusSourceRow, currency: string, digits: number): FocusRow {
  const kind = resourceKind(r.resource);
  const cost = pricingOf(r) === "unpriced" ? null : sumMoney([r.cost], digits);
  const [billingStart, billingEnd] = monthBounds(r.periodStart);
  const tags: Record<string, string> = { tenant: r.tenantSlug, project: r.projectSlug };
  if (r.costCentre) tags.costCentre = r.costCentre;
  return {
    BillingAccountId: r.tenantId,
    BillingAccountName: r.tenantName,
    BillingPeriodStart: focusDateTime(billingStart),
    BillingPeriodEnd: focusDateTime(billingEnd),
    ChargePeriodStart: focusDateTime(r.periodStart),
    ChargePeriodEnd: focusDateTime(r.periodEnd),
    ChargeCategory: "Usage",
    ChargeClass: null,
    ChargeDescription: `${resourceLabel(r.resource)} used by ${r.projectName}`,
    BilledCost: cost,
    EffectiveCost: cost,
    ListCost: cost,
    ContractedCost: cost,
    BillingCurrency: currency,
    PricingQuantity: quantityOf(r.quantity / pricingDivisor(kind)),
    PricingUnit: PRICING_UNIT[kind],
    ConsumedQuantity: quantityOf(r.quantity),
    ConsumedUnit: CONSUMED_UNIT[kind],
    ServiceCategory: SERVICE_CATEGORY[kind],
    ServiceName: FOCUS_SERVICE_NAME,
    ProviderName: FOCUS_PROVIDER_NAME,
    PublisherName: FOCUS_PROVIDER_NAME,
    InvoiceIssuerName: FOCUS_PROVIDER_NAME,
    SubAccountId: r.projectId,
    SubAccountName: r.projectName,
    ResourceType: resourceTypeOf(r.resource),
    Tags: tags,
    x_Tenant: r.tenantSlug,
    x_Project: r.projectSlug,
    x_GpuModel: gpuModelOf(r.resource),
    x_UnpricedQuantity: quantityOf(r.unpricedQuantity),
    x_IdleCost: null,
  };
}

const keyOf = (r: FocusSourceRow) => `${r.periodStart.getTime()}\u0000${r.projectId}\u0000${r.resource}`;

function compareRows(a: FocusSourceRow, b: FocusSourceRow): number {
  return (
    a.periodStart.getTime() - b.periodStart.getTime() ||
    cmp(a.tenantSlug, b.tenantSlug) ||
    cmp(a.projectSlug, b.projectSlug) ||
    cmp(a.projectId, b.projectId) ||
    cmp(a.resource, b.resource)
  );
}
/** Code-point order, the same on every machine (no locale). */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The FOCUS rows of an export: one per (period, project, resource), rows
 * naming the same one merged (their quantities and costs added), ordered by
 * period, tenant, project and resource.
 */
export function focusRows(source: readonly FocusSourceRow[], currency: string, digits: number): FocusRow[] {
  const merged = new Map<string, FocusSourceRow>();
  for (const r of source) {
    const key = keyOf(r);
    const seen = merged.get(key);
    if (!seen) merged.set(key, { ...r });
    else {
      seen.quantity += r.quantity;
      seen.cost = sumMoney([seen.cost, r.cost], digits);
      seen.unpricedQuantity += r.unpricedQuantity;
      if (r.periodEnd > seen.periodEnd) seen.periodEnd = r.periodEnd;
    }
  }
  return [...merged.values()].sort(compareRows).map((r) => focusRow(r, currency, digits));
}

const MONEY_COLUMNS = new Set<string>(["BilledCost", "EffectiveCost", "ListCost", "ContractedCost"]);

/** The CSV columns: money with exactly the currency's minor digits, everything else as the row holds it. */
export function focusCsvColumns(digits: number) {
  return FOCUS_COLUMN_NAMES.map((name) => ({
    header: name,
    value: (row: FocusRow) => {
      const v = row[name];
      return MONEY_COLUMNS.has(name) && typeof v === "number" ? decimalText(toMinor(v, digits), digits) : v;
    },
  }));
}

/** The rows as CSV with the FOCUS header (cells escaped, formula-safe: lib/csv.ts). */
export function focusCsv(rows: readonly FocusRow[], digits: number): string {
  return toCsv(rows, focusCsvColumns(digits));
}
