import { describe, expect, it } from "vitest";
import { cohortPicture, type CohortMember } from "./cohort";

const H100 = { flavor: "H100", resource: "nvidia.com/gpu" };
const member = (slug: string, weight: number, guarantee: number, burst = 0, lendLimit: number | null = null): CohortMember => ({
  slug,
  name: slug,
  weight,
  lines: [{ ...H100, guarantee, burst, lendLimit }],
});

describe("cohort picture", () => {
  it("sums guarantees, bursts and what is lent, and weighs fair shares, before and after a request", () => {
    const members = [member("pretraining", 2, 16, 0, 8), member("chat-eval", 1, 0), member("detector", 1, 8, 4)];
    const [c] = cohortPicture(members, "detector", [{ ...H100, guarantee: 2, burst: 4, lendLimit: null }]);
    expect(c!.before).toMatchObject({ guarantee: 24, burst: 4, lendable: 16 });
    expect(c!.after).toMatchObject({ guarantee: 26, burst: 8, lendable: 18 });
    // chat-eval holds no H100: it takes no part in the line's fair shares.
    expect(c!.before.members.map((m) => [m.slug, Math.round(m.fairShare * 1000) / 1000])).toEqual([
      ["pretraining", 0.667],
      ["detector", 0.333],
    ]);
  });

  it("a project new to the line joins its fair shares; its lend limit stays a limit", () => {
    const [c] = cohortPicture([member("pretraining", 2, 16, 0, 8), member("chat-eval", 1, 0)], "chat-eval", [{ ...H100, guarantee: 0, burst: 4, lendLimit: null }]);
    expect(c!.after.members.map((m) => [m.slug, m.fairShare])).toEqual([
      ["pretraining", 2 / 3],
      ["chat-eval", 1 / 3],
    ]);
    expect(c!.after.lendable).toBe(8);
    const [d] = cohortPicture([member("pretraining", 2, 16, 0, 8)], "pretraining", [{ ...H100, guarantee: 4, burst: 0, lendLimit: null }]);
    expect(d!.after).toMatchObject({ guarantee: 20, lendable: 8 });
  });
});
