import { describe, expect, it } from "vitest";
import { FOCUS_COLUMN_NAMES, focusCsv, focusDateTime, focusRow, focusRows, resourceTypeOf, SERVICE_CATEGORY, type FocusSourceRow } from "./focus";

/** FOCUS rows built from usage: columns, units, categories, merging, order and CSV. */

const DAY = "2026-03-02T00:00:00Z";
const NEXT = "2026-03-03T00:00:00Z";

function source(over: Partial<FocusSourceRow> = {}): FocusSourceRow {
  return {
    periodStart: new Date(DAY),
    periodEnd: new Date(NEXT),
    tenantId: "t-1",
    tenantSlug: "vision-lab",
    tenantName: "Vision Lab",
    costCentre: "CC-4100",
    projectId: "p-1",
    projectSlug: "detector-training",
    projectName: "Detector training",
    resource: "gpu:H100",
    quantity: 6,
    cost: 24.6,
    unpricedQuantity: 0,
    ...over,
  };
}

/** The FOCUS 1.x ServiceCategory allowed values (specification/columns/servicecategory.md). */
const ALLOWED_SERVICE_CATEGORIES = [
  "AI and Machine Learning",
  "Analytics",
  "Business Applications",
  "Compute",
  "Databases",
  "Developer Tools",
  "Multicloud",
  "Identity",
  "Integration",
  "Internet of Things",
  "Management and Governance",
  "Media",
  "Migration",
  "Mobile",
  "Networking",
  "Security",
  "Storage",
  "Web",
  "Other",
];

describe("a FOCUS row", () => {
  it("carries cost at the rate card in every cost column, the periods and the account hierarchy", () => {
    expect(focusRow(source(), "EUR", 2)).toEqual({
      BillingAccountId: "t-1",
      BillingAccountName: "Vision Lab",
      BillingPeriodStart: "2026-03-01T00:00:00Z",
      BillingPeriodEnd: "2026-04-01T00:00:00Z",
      ChargePeriodStart: "2026-03-02T00:00:00Z",
      ChargePeriodEnd: "2026-03-03T00:00:00Z",
      ChargeCategory: "Usage",
      ChargeClass: null,
      ChargeDescription: "H100 GPUs used by Detector training",
      BilledCost: 24.6,
      EffectiveCost: 24.6,
      ListCost: 24.6,
      ContractedCost: 24.6,
      BillingCurrency: "EUR",
      PricingQuantity: 6,
      PricingUnit: "GPU-Hours",
      ConsumedQuantity: 6,
      ConsumedUnit: "GPU-Hours",
      ServiceCategory: "Compute",
      ServiceName: "Allot",
      ProviderName: "Allot",
      PublisherName: "Allot",
      InvoiceIssuerName: "Allot",
      SubAccountId: "p-1",
      SubAccountName: "Detector training",
      ResourceType: "GPU",
      Tags: { tenant: "vision-lab", project: "detector-training", costCentre: "CC-4100" },
      x_Tenant: "vision-lab",
      x_Project: "detector-training",
      x_GpuModel: "H100",
      x_UnpricedQuantity: 0,
      x_IdleCost: null,
    });
  });

  it.each([
    ["gpu:A100 1g.10gb", "GPU", "Compute", "GPU-Hours", "GPU-Hours", 4, "A100 1g.10gb"],
    ["cpu", "CPU", "Compute", "Core-Hours", "Core-Hours", 4, null],
    ["memory", "Memory", "Compute", "GiB-Hours", "GiB-Hours", 4, null],
    ["storage", "Storage", "Storage", "GiB-Hours", "GiB-Months", 0.005479, null],
    ["inference", "Inference", "AI and Machine Learning", "Requests", "1000 Requests", 0.004, null],
    ["tokens.out", "tokens.out", "Other", "Units", "Units", 4, null],
  ] as const)("%s: resource type %s, service category %s, consumed in %s, priced in %s", (resource, type, category, consumedUnit, pricingUnit, pricingQuantity, model) => {
    const row = focusRow(source({ resource, quantity: 4 }), "USD", 2);
    expect(row).toMatchObject({ ResourceType: type, ServiceCategory: category, ConsumedUnit: consumedUnit, PricingUnit: pricingUnit, ConsumedQuantity: 4, x_GpuModel: model });
    expect(row.PricingQuantity).toBe(pricingQuantity);
  });

  it("uses only ServiceCategory values FOCUS allows", () => {
    for (const category of Object.values(SERVICE_CATEGORY)) expect(ALLOWED_SERVICE_CATEGORIES).toContain(category);
    expect(resourceTypeOf("gpu:L4")).toBe("GPU");
  });

  it("leaves an empty cost centre out of the tags and keeps unpriced quantity visible", () => {
    const row = focusRow(source({ costCentre: "", resource: "tokens", cost: 0, quantity: 10, unpricedQuantity: 10 }), "USD", 2);
    expect(row.Tags).toEqual({ tenant: "vision-lab", project: "detector-training" });
    // Unpriced: the cost is unknown, never zero; the CSV leaves the cost cells empty.
    expect(row).toMatchObject({ BilledCost: null, EffectiveCost: null, ListCost: null, ContractedCost: null, x_UnpricedQuantity: 10 });
    expect(focusCsv([row], 2).split("\r\n")[1]).toContain(",tokens used by Detector training,,,,,USD,");
    // Partly priced (a price started mid-period): the priced part's cost, and the rest stated.
    expect(focusRow(source({ resource: "tokens", cost: 1.5, quantity: 10, unpricedQuantity: 4 }), "USD", 2)).toMatchObject({ BilledCost: 1.5, x_UnpricedQuantity: 4 });
  });

  it("carries money to the minor unit and quantities to six decimals, and writes instants to the second in UTC", () => {
    expect(focusRow(source({ cost: 0.1 + 0.2 }), "USD", 2).BilledCost).toBe(0.3);
    expect(focusRow(source({ cost: 12 }), "JPY", 0).BilledCost).toBe(12);
    // 138.7625 GiB-hours of storage is 0.19008561643835616… GiB-months: six decimals, rounded half away from zero.
    const storage = focusRow(source({ resource: "storage", quantity: 138.7625, cost: 0.02 }), "USD", 2);
    expect(storage).toMatchObject({ PricingQuantity: 0.190086, ConsumedQuantity: 138.7625 });
    expect(focusRow(source({ quantity: 0.1 + 0.2, unpricedQuantity: 2.0000005 }), "USD", 2)).toMatchObject({ ConsumedQuantity: 0.3, PricingQuantity: 0.3, x_UnpricedQuantity: 2.000001 });
    expect(focusDateTime(new Date("2026-03-02T10:00:00.000Z"))).toBe("2026-03-02T10:00:00Z");
  });

  it("writes money in the CSV with exactly the currency's minor digits and no quantity with more than six decimals", () => {
    const rows = focusRows([source({ cost: 3, quantity: 1 / 3 }), source({ resource: "storage", cost: 0.1, quantity: 138.7625 }), source({ resource: "inference", cost: 1.5, quantity: 12345 })], "USD", 2);
    const lines = focusCsv(rows, 2).trimEnd().split("\r\n").slice(1);
    const column = (name: string) => lines.map((l) => l.split(",")[FOCUS_COLUMN_NAMES.indexOf(name as (typeof FOCUS_COLUMN_NAMES)[number])]);
    expect(column("BilledCost")).toEqual(["3.00", "1.50", "0.10"]);
    expect(column("ConsumedQuantity")).toEqual(["0.333333", "12345", "138.7625"]);
    expect(column("PricingQuantity")).toEqual(["0.333333", "12.345", "0.190086"]);
    for (const l of lines) for (const cell of l.split(",")) expect(cell).not.toMatch(/^\d+\.\d{7,}$|e[+-]\d/);
    expect(focusCsv(focusRows([source({ cost: 1234 })], "JPY", 0), 0)).toContain(",1234,1234,1234,1234,JPY,");
  });

  it("puts a month period's billing period around it", () => {
    const row = focusRow(source({ periodStart: new Date("2026-02-15T00:00:00Z"), periodEnd: new Date("2026-03-01T00:00:00Z") }), "USD", 2);
    expect(row).toMatchObject({ BillingPeriodStart: "2026-02-01T00:00:00Z", BillingPeriodEnd: "2026-03-01T00:00:00Z", ChargePeriodStart: "2026-02-15T00:00:00Z", ChargePeriodEnd: "2026-03-01T00:00:00Z" });
  });
});

describe("the rows of an export", () => {
  const rows = [
    source({ resource: "memory", quantity: 10, cost: 0.04 }),
    source({ projectId: "p-0", projectSlug: "chat-eval", projectName: "Chat evaluation", tenantSlug: "language-models", tenantId: "t-0", resource: "cpu" }),
    source({ periodStart: new Date("2026-03-01T00:00:00Z"), periodEnd: new Date(DAY), resource: "cpu" }),
    source({ resource: "cpu", quantity: 8, cost: 0.24 }),
  ];

  it("are ordered by period, tenant, project and resource whatever order they came in", () => {
    const keys = (input: FocusSourceRow[]) => focusRows(input, "USD", 2).map((r) => `${r.ChargePeriodStart} ${r.x_Tenant}/${r.x_Project} ${r.ResourceType}`);
    const expected = [
      "2026-03-01T00:00:00Z vision-lab/detector-training CPU",
      "2026-03-02T00:00:00Z language-models/chat-eval CPU",
      "2026-03-02T00:00:00Z vision-lab/detector-training CPU",
      "2026-03-02T00:00:00Z vision-lab/detector-training Memory",
    ];
    expect(keys(rows)).toEqual(expected);
    expect(keys([...rows].reverse())).toEqual(expected);
  });

  it("never hold a (period, project, resource) twice: parts of one are added up", () => {
    const split = [source({ resource: "cpu", quantity: 5, cost: 0.15 }), source({ resource: "cpu", quantity: 3, cost: 0.09, unpricedQuantity: 1 })];
    const merged = focusRows(split, "USD", 2);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ ConsumedQuantity: 8, BilledCost: 0.24, x_UnpricedQuantity: 1 });
    // The input is not changed by merging.
    expect(split[0]!.quantity).toBe(5);
  });

  it("are the same on a re-run", () => {
    expect(focusCsv(focusRows(rows, "USD", 2), 2)).toBe(focusCsv(focusRows([...rows], "USD", 2), 2));
  });
});

describe("the CSV", () => {
  it("has the FOCUS header in a fixed order and one line per row", () => {
    const csv = focusCsv(focusRows([source()], "USD", 2), 2);
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe(FOCUS_COLUMN_NAMES.join(","));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(
      [
        "t-1",
        "Vision Lab",
        "2026-03-01T00:00:00Z",
        "2026-04-01T00:00:00Z",
        "2026-03-02T00:00:00Z",
        "2026-03-03T00:00:00Z",
        "Usage",
        "",
        "H100 GPUs used by Detector training",
        "24.60",
        "24.60",
        "24.60",
        "24.60",
        "USD",
        "6",
        "GPU-Hours",
        "6",
        "GPU-Hours",
        "Compute",
        "Allot",
        "Allot",
        "Allot",
        "Allot",
        "p-1",
        "Detector training",
        "GPU",
        '"{""tenant"":""vision-lab"",""project"":""detector-training"",""costCentre"":""CC-4100""}"',
        "vision-lab",
        "detector-training",
        "H100",
        "0",
        "",
      ].join(","),
    );
  });

  it("keeps names that look like formulas from running in a spreadsheet", () => {
    const csv = focusCsv(focusRows([source({ projectName: "=HYPERLINK(1)", tenantName: "+Lab, Inc" })], "USD", 2), 2);
    expect(csv).toContain(",'=HYPERLINK(1),");
    expect(csv).toContain(`"'+Lab, Inc"`);
  });

  it("is just the header when there is no usage", () => {
    expect(focusCsv([], 2)).toBe(`${FOCUS_COLUMN_NAMES.join(",")}\r\n`);
  });
});
