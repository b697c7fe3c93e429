import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resourceColour, resourceColours } from "./palette";

const DEMO = ["gpu:H100", "gpu:L4", "gpu:A100 1g.10gb", "cpu", "memory", "storage", "inference"];

describe("one colour per resource", () => {
  it("gives the demo's resources distinct colours, the same whichever page lists them", () => {
    const all = resourceColours(DEMO);
    expect(new Set(all.values()).size).toBe(DEMO.length);
    // A project's page shows only some of them: each keeps the colour the platform's page gives it.
    const project = resourceColours(["gpu:L4", "cpu", "storage"]);
    for (const [key, colour] of project) expect(colour).toBe(all.get(key));
    for (const key of DEMO) expect(all.get(key)).toBe(resourceColour(key));
  });

  it("never lets two resources of one chart share a colour while their family has one free (property)", () => {
    const key = fc.oneof(
      fc.string({ minLength: 1, maxLength: 12 }).map((m) => `gpu:${m}`),
      fc.string({ minLength: 1, maxLength: 12 }).map((m) => `meter:${m}`),
      fc.constantFrom("cpu", "memory", "storage", "inference"),
    );
    fc.assert(
      fc.property(fc.uniqueArray(key, { maxLength: 14 }), (keys) => {
        const colours = resourceColours(keys);
        const gpus = keys.filter((k) => k.startsWith("gpu:"));
        const gpuColours = new Set(gpus.map((k) => colours.get(k)));
        expect(gpuColours.size).toBe(Math.min(gpus.length, 10));
        // GPU colours are never CPU's, memory's, storage's or inference's.
        for (const k of ["cpu", "memory", "storage", "inference"]) expect(gpuColours.has(resourceColour(k))).toBe(false);
      }),
    );
  });
});
