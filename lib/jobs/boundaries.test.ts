import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * lib/cluster turns desired state into Kubernetes objects and applies them; it
 * knows nothing of quota requests, notifications, metering or the job loop.
 * What follows a change hooks in through ReconcilerOptions.afterSettled, and
 * the jobs are started from lib/jobs, which imports the capabilities (never
 * the other way round).
 */
const FORBIDDEN_IN_CLUSTER = [/^@\/lib\/jobs\/(worker-loop|in-process)$/, /^@\/lib\/notify(\/|$)/, /^@\/lib\/metering(\/|$)/, /^@\/lib\/quota\/(follow|expiry|commands|requests|places)(\/|$)/];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

const importsIn = (source: string) => [...source.matchAll(/^\s*(?:import|export)[^'"]*?from\s+["']([^"']+)["']/gm)].map((m) => m[1]!);
const forbidden = (specs: string[]) => specs.filter((spec) => FORBIDDEN_IN_CLUSTER.some((re) => re.test(spec)));

describe("module boundaries of the jobs", () => {
  it("lib/cluster imports neither the job loop nor the capabilities that follow it", () => {
    const offending = sourceFiles(path.join(process.cwd(), "lib/cluster")).flatMap((file) =>
      forbidden(importsIn(fs.readFileSync(file, "utf8"))).map((spec) => `${path.relative(process.cwd(), file)} imports ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it("finds an import of that kind when one is there (the check can fail)", () => {
    const sample = 'import { x } from "@/lib/quota/follow";\nimport type { Y } from "@/lib/notify/webhooks";\n';
    expect(forbidden(importsIn(sample))).toEqual(["@/lib/quota/follow", "@/lib/notify/webhooks"]);
  });
});
