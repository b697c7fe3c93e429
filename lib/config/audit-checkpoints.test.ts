import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateCheckpointKeyPair } from "@/lib/audit/checkpoint";
import { parseConfig } from "./index";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allot-config-keys-"));
const pair = generateCheckpointKeyPair();
const other = generateCheckpointKeyPair();
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};
const KEY = file("key.pem", pair.privatePem);
const PUB = file("key.pub", pair.publicPem);
const OTHER_PUB = file("other.pub", other.publicPem);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("audit checkpoint configuration", () => {
  it("is off by default: nothing signs, nothing can be checked", () => {
    expect(parseConfig({}).auditCheckpoints).toEqual({ signing: null, publicKey: null, keyId: null, dir: null, webhook: null, logStream: true, intervalMinutes: 5 });
  });

  it("signs with the key file, verifies with its public half, and reads the places and interval", () => {
    const c = parseConfig({
      ALLOT_AUDIT_CHECKPOINT_KEY_FILE: KEY,
      ALLOT_AUDIT_CHECKPOINT_DIR: "/var/lib/allot-checkpoints",
      ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL: "https://anchor.example.com/allot",
      ALLOT_AUDIT_CHECKPOINT_WEBHOOK_SECRET: "x".repeat(32),
      ALLOT_AUDIT_CHECKPOINT_INTERVAL_MINUTES: "15",
    }).auditCheckpoints;
    expect(c.signing?.privateKey.asymmetricKeyType).toBe("ed25519");
    expect(c.keyId).toBe(pair.keyId);
    expect(c).toMatchObject({ dir: "/var/lib/allot-checkpoints", webhook: { url: "https://anchor.example.com/allot", secret: "x".repeat(32) }, logStream: true, intervalMinutes: 15 });
    // The key inline, with its newlines escaped as env files often carry them.
    expect(parseConfig({ ALLOT_AUDIT_CHECKPOINT_KEY: pair.privatePem.replaceAll("\n", "\\n") }).auditCheckpoints.keyId).toBe(pair.keyId);
  });

  it("verifies with only the public key, for a process that must not sign", () => {
    const c = parseConfig({ ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE: PUB, ALLOT_AUDIT_CHECKPOINT_DIR: dir }).auditCheckpoints;
    expect(c.signing).toBeNull();
    expect(c.keyId).toBe(pair.keyId);
  });

  it.each([
    [{ ALLOT_AUDIT_CHECKPOINT_KEY_FILE: path.join(dir, "missing.pem") }, /ALLOT_AUDIT_CHECKPOINT_KEY_FILE cannot be read \(ENOENT/],
    [{ ALLOT_AUDIT_CHECKPOINT_KEY_FILE: PUB }, /ALLOT_AUDIT_CHECKPOINT_KEY_FILE is not a PEM private key/],
    [{ ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE: KEY }, /ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE must be the public key, not the private one/],
    [{ ALLOT_AUDIT_CHECKPOINT_KEY_FILE: KEY, ALLOT_AUDIT_CHECKPOINT_KEY: pair.privatePem }, /both set: set only one/],
    [{ ALLOT_AUDIT_CHECKPOINT_KEY_FILE: KEY, ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE: OTHER_PUB }, /ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE is not the public half of ALLOT_AUDIT_CHECKPOINT_KEY_FILE/],
    [{ ALLOT_AUDIT_CHECKPOINT_DIR: dir }, /ALLOT_AUDIT_CHECKPOINT_DIR needs ALLOT_AUDIT_CHECKPOINT_KEY_FILE/],
    [{ ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE: PUB, ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL: "https://a.example.com" }, /ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL needs ALLOT_AUDIT_CHECKPOINT_KEY_FILE/],
    [{ ALLOT_AUDIT_CHECKPOINT_KEY_FILE: KEY, ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL: "ftp://a.example.com" }, /ALLOT_AUDIT_CHECKPOINT_WEBHOOK_URL must be an http:\/\/ or https:\/\/ URL/],
    [{ ALLOT_AUDIT_CHECKPOINT_KEY_FILE: KEY, ALLOT_AUDIT_CHECKPOINT_LOG: "0" }, /signed checkpoints would go nowhere/],
    [{ ALLOT_AUDIT_CHECKPOINT_INTERVAL_MINUTES: "2.5" }, /ALLOT_AUDIT_CHECKPOINT_INTERVAL_MINUTES must be a whole number of minutes/],
    [{ ALLOT_AUDIT_CHECKPOINT_INTERVAL_MINUTES: "-1" }, /ALLOT_AUDIT_CHECKPOINT_INTERVAL_MINUTES must be 0 \(only on demand\) or more/],
  ])("refuses %j with a message naming the variable", (env, message) => {
    expect(() => parseConfig(env)).toThrow(message);
  });
});
