import { describe, expect, it } from "vitest";
import { canonicalJson, findFirstBrokenLink, GENESIS_HASH, hashAuditEvent, type AuditContent, type ChainedAuditEvent } from "./chain";

function chainOf(contents: Omit<AuditContent, "seq">[]): ChainedAuditEvent[] {
  const out: ChainedAuditEvent[] = [];
  let prevHash = GENESIS_HASH;
  contents.forEach((c, i) => {
    const content = { ...c, seq: i + 1 };
    const hash = hashAuditEvent(prevHash, content);
    out.push({ ...content, prevHash, hash });
    prevHash = hash;
  });
  return out;
}

const base = {
  at: new Date("2026-12-01T10:00:00.000Z"),
  actorPrincipalId: "11111111-1111-4111-8111-111111111111",
  actorLabel: "alex@vision.example",
  tenantId: null,
  targetType: "project",
};

const sample = () =>
  chainOf([
    { ...base, action: "tenant.created", targetId: "t1", before: null, after: { slug: "vision", name: "Vision" } },
    { ...base, action: "project.created", targetId: "p1", before: null, after: { slug: "det", nested: { b: 1, a: [1, 2] } } },
    { ...base, action: "membership.role_changed", targetId: "m1", before: { role: "member" }, after: { role: "viewer" } },
  ]);

describe("audit hash chain", () => {
  it("accepts an untouched chain", () => {
    expect(findFirstBrokenLink(sample())).toBeNull();
  });

  it("finds a changed field in the content", () => {
    const events = sample();
    events[1] = { ...events[1]!, after: { slug: "det", nested: { b: 2, a: [1, 2] } } };
    expect(findFirstBrokenLink(events)).toEqual({ seq: 2, reason: expect.stringMatching(/changed/) as unknown });
  });

  it("finds a changed actor or time", () => {
    const byActor = sample();
    byActor[2] = { ...byActor[2]!, actorLabel: "someone-else" };
    expect(findFirstBrokenLink(byActor)?.seq).toBe(3);
    const byTime = sample();
    byTime[0] = { ...byTime[0]!, at: new Date("2026-12-01T10:00:00.001Z") };
    expect(findFirstBrokenLink(byTime)?.seq).toBe(1);
  });

  it("finds a removed event", () => {
    const events = sample();
    events.splice(1, 1);
    expect(findFirstBrokenLink(events)?.seq).toBe(3);
  });

  it("finds an event re-hashed after a change, at the next link", () => {
    const events = sample();
    const forged = { ...events[0]!, action: "tenant.deleted" };
    events[0] = { ...forged, hash: hashAuditEvent(GENESIS_HASH, forged) };
    expect(findFirstBrokenLink(events)).toEqual({ seq: 2, reason: expect.stringMatching(/previous hash/) as unknown });
  });

  it("hashes independently of key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 1, x: 2 }], c: null } })).toBe(canonicalJson({ a: { c: null, d: [1, { x: 2, y: 1 }] }, b: 1 }));
  });

  it("can verify page by page from a known link", () => {
    const events = sample();
    expect(findFirstBrokenLink(events.slice(2), { prevHash: events[1]!.hash, seq: 3 })).toBeNull();
  });
});
