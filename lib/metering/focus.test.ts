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
    expect(focusRow(source(), "EUR")).toEqual({
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
    });
  });

  it.each([
    ["gpu:A100 1g.10gb", "GPU", "Compute", "GPU-Hours", "GPU-Hours", 4, "A100 1g.10gb"],
    ["cpu", "CPU", "Compute", "Core-Hours", "Core-Hours", 4, null],
    ["memory", "Memory", "Compute", "GiB-Hours", "GiB-Hours", 4, null],
    ["storage", "Storage", "Storage", "GiB-Hours", "GiB-Months", 4 / 730, null],
    ["inference", "Inference", "AI and Machine Learning", "Requests", "1000 Requests", 0.004, null],
    ["tokens.out", "tokens.out", "Other", "Units", "Units", 4, null],
  ] as const)("%s: resource type %s, service category %s, consumed in %s, priced in %s", (resource, type, category, consumedUnit, pricingUnit, pricingQuantity, model) => {
    const row = focusRow(source({ resource, quantity: 4 }), "USD");
    expect(row).toMatchObject({ ResourceType: type, ServiceCategory: category, ConsumedUnit: consumedUnit, PricingUnit: pricingUnit, ConsumedQuantity: 4, x_GpuModel: model });
    expect(row.PricingQuantity).toBeCloseTo(pricingQuantity, 12);
  });

  it("uses only ServiceCategory values FOCUS allows", () => {
    for (const category of Object.values(SERVICE_CATEGORY)) expect(ALLOWED_SERVICE_CATEGORIES).toContain(category);
    expect(resourceTypeOf("gpu:L4")).toBe("GPU");
  });

  it("leaves an empty cost centre out of the tags and keeps unpriced quantity visible", () => {
    const row = focusRow(source({ costCentre: "", resource: "tokens", cost: 0, quantity: 10, unpricedQuantity: 10 }), "USD");
    expect(row.Tags).toEqual({ tenant: "vision-lab", project: "detector-training" });
    expect(row).toMatchObject({ BilledCost: 0, x_UnpricedQuantity: 10 });
  });

  it("drops float noise below nine decimals from money, and writes instants to the second in UTC", () => {
    expect(focusRow(source({ cost: 0.1 + 0.2 }), "USD").BilledCost).toBe(0.3);
    expect(focusDateTime(new Date("2026-03-02T10:00:00.000Z"))).toBe("2026-03-02T10:00:00Z");
  });

  it("puts a month period's billing period around it", () => {
    const row = focusRow(source({ periodStart: new Date("2026-02-15T00:00:00Z"), periodEnd: new Date("2026-03-01T00:00:00Z") }), "USD");
    expect(row).toMatchObject({ BillingPeriodStart: "2026-02-01T00:00:00Z", BillingPeriodEnd: "2026-03-01T00:00:00Z", ChargePeriodStart: "2026-02-15T00:00:00Z", ChargePeriodEnd: "2026-03-01T00:00:00Z" });
  });
});

describe("the rows of an export", () => {
  const rows = [
    source({ resource: "memory", quantity: 10, cost: 0.04 }),
    source({ projectId: "p-0", projectSlug: "chat-eval", projectName: "Chat evaluation", tenantSlug: "language-models", tenantId: "t-0", resource: "cpu" }),
    source({ periodStart: new Date("2026-03-01T00:00:00Z"), periodEnd: new Date(DAY), resource: "cpu" }),
    source({ resource: "cpu", quantity: 8, cost: 0.248 }),
  ];

  it("are ordered by period, tenant, project and resource whatever order they came in", () => {
    const keys = (input: FocusSourceRow[]) => focusRows(input, "USD").map((r) => `${r.ChargePeriodStart} ${r.x_Tenant}/${r.x_Project} ${r.ResourceType}`);
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
    const split = [source({ resource: "cpu", quantity: 5, cost: 0.155 }), source({ resource: "cpu", quantity: 3, cost: 0.093, unpricedQuantity: 1 })];
    const merged = focusRows(split, "USD");
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ ConsumedQuantity: 8, BilledCost: 0.248, x_UnpricedQuantity: 1 });
    // The input is not changed by merging.
    expect(split[0]!.quantity).toBe(5);
  });

  it("are the same on a re-run", () => {
    expect(focusCsv(focusRows(rows, "USD"))).toBe(focusCsv(focusRows([...rows], "USD")));
  });
});

describe("the CSV", () => {
  it("has the FOCUS header in a fixed order and one line per row", () => {
    const csv = focusCsv(focusRows([source()], "USD"));
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
        "24.6",
        "24.6",
        "24.6",
        "24.6",
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
      ].join(","),
    );
  });

  it("keeps names that look like formulas from running in a spreadsheet", () => {
    const csv = focusCsv(focusRows([source({ projectName: "=HYPERLINK(1)", tenantName: "+Lab, Inc" })], "USD"));
    expect(csv).toContain(",'=HYPERLINK(1),");
    expect(csv).toContain(`"'+Lab, Inc"`);
  });

  it("is just the header when there is no usage", () => {
    expect(focusCsv([])).toBe(`${FOCUS_COLUMN_NAMES.join(",")}\r\n`);
  });
});
