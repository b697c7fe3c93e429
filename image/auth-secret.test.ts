import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuthSecretError, resolveAuthSecret } from "./auth-secret.mjs";

const SECRET = "s".repeat(40);

describe("resolveAuthSecret", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "allot-secret-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("keeps AUTH_SECRET when it is set, and writes nothing", () => {
    const env: Record<string, string | undefined> = { AUTH_SECRET: SECRET, ALLOT_DATA_DIR: path.join(dir, "db") };
    expect(resolveAuthSecret(env)).toBe("AUTH_SECRET");
    expect(env.AUTH_SECRET).toBe(SECRET);
    expect(fs.existsSync(path.join(dir, "db"))).toBe(false);
  });

  it("reads AUTH_SECRET_FILE (a mounted secret), trimming the newline, also with DATABASE_URL", () => {
    fs.writeFileSync(path.join(dir, "secret"), `${SECRET}\n`);
    const env: Record<string, string | undefined> = { AUTH_SECRET_FILE: path.join(dir, "secret"), DATABASE_URL: "postgres://db/allot" };
    expect(resolveAuthSecret(env)).toContain("AUTH_SECRET_FILE");
    expect(env.AUTH_SECRET).toBe(SECRET);
  });

  it("on the embedded database, creates <ALLOT_DATA_DIR>/auth-secret once (owner-only) and reuses it", () => {
    const first: Record<string, string | undefined> = { ALLOT_DATA_DIR: path.join(dir, "db") };
    resolveAuthSecret(first);
    const file = path.join(dir, "db", "auth-secret");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(first.AUTH_SECRET!.length).toBeGreaterThanOrEqual(32);
    const second: Record<string, string | undefined> = { ALLOT_DATA_DIR: path.join(dir, "db") };
    resolveAuthSecret(second);
    expect(second.AUTH_SECRET).toBe(first.AUTH_SECRET);
  });

  it("on PostgreSQL never makes a secret: none configured stays unset, a missing file is an error naming the variable", () => {
    const none: Record<string, string | undefined> = { DATABASE_URL: "postgres://db/allot" };
    expect(resolveAuthSecret(none)).toBeNull();
    expect(none.AUTH_SECRET).toBeUndefined();
    const missing = path.join(dir, "absent");
    expect(() => resolveAuthSecret({ DATABASE_URL: "postgres://db/allot", AUTH_SECRET_FILE: missing })).toThrow(AuthSecretError);
    expect(() => resolveAuthSecret({ DATABASE_URL: "postgres://db/allot", AUTH_SECRET_FILE: missing })).toThrow(/AUTH_SECRET_FILE .*does not exist.*same secret/);
    expect(fs.existsSync(missing)).toBe(false);
  });

  it("refuses a secret shorter than 32 characters, naming the file's variable", () => {
    fs.writeFileSync(path.join(dir, "short"), "too-short");
    expect(() => resolveAuthSecret({ AUTH_SECRET_FILE: path.join(dir, "short") })).toThrow(/AUTH_SECRET_FILE \(.*short\) must hold a secret of at least 32 characters/);
  });
});
