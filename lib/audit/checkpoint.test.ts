import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  checkCheckpointSignature,
  checkpointKeyId,
  checkpointPrivateKey,
  checkpointPublicKey,
  generateCheckpointKeyPair,
  parseSignedCheckpoint,
  signCheckpoint,
  CheckpointKeyError,
} from "./checkpoint";

const HEAD = { seq: 1250, hash: "ab".repeat(32) };
const AT = new Date("2026-12-03T12:05:00.000Z");

function keys() {
  const pair = generateCheckpointKeyPair();
  return { ...pair, privateKey: checkpointPrivateKey(pair.privatePem), publicKey: checkpointPublicKey(pair.publicPem) };
}

describe("audit checkpoints", () => {
  it("signs {seq, hash, time} with the key's id, and the public key accepts it", () => {
    const k = keys();
    const c = signCheckpoint(HEAD, AT, k.privateKey);
    expect(c).toMatchObject({ format: "allot.audit-checkpoint.v1", seq: 1250, hash: HEAD.hash, at: "2026-12-03T12:05:00.000Z", keyId: k.keyId });
    expect(c.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(checkCheckpointSignature(c, k.publicKey)).toEqual({ valid: true });
    // It survives a round trip through JSON, as it travels.
    expect(checkCheckpointSignature(parseSignedCheckpoint(JSON.parse(JSON.stringify(c))), k.publicKey)).toEqual({ valid: true });
  });

  it("refuses a checkpoint whose seq, hash or time was changed after signing", () => {
    const k = keys();
    const c = signCheckpoint(HEAD, AT, k.privateKey);
    for (const forged of [{ ...c, seq: 1200 }, { ...c, hash: "cd".repeat(32) }, { ...c, at: "2026-12-03T13:05:00.000Z" }]) {
      expect(checkCheckpointSignature(forged, k.publicKey)).toEqual({ valid: false, reason: "bad_signature" });
    }
  });

  it("refuses a tampered signature", () => {
    const k = keys();
    const c = signCheckpoint(HEAD, AT, k.privateKey);
    const bytes = Buffer.from(c.signature, "base64");
    bytes[10] = bytes[10]! ^ 0x01;
    expect(checkCheckpointSignature({ ...c, signature: bytes.toString("base64") }, k.publicKey)).toEqual({ valid: false, reason: "bad_signature" });
    expect(checkCheckpointSignature({ ...c, signature: Buffer.alloc(64).toString("base64") }, k.publicKey)).toEqual({ valid: false, reason: "bad_signature" });
  });

  it("refuses a checkpoint of another key, also when it claims this key's id", () => {
    const mine = keys();
    const theirs = keys();
    const c = signCheckpoint(HEAD, AT, theirs.privateKey);
    expect(checkCheckpointSignature(c, mine.publicKey)).toEqual({ valid: false, reason: "other_key" });
    expect(checkCheckpointSignature({ ...c, keyId: mine.keyId }, mine.publicKey)).toEqual({ valid: false, reason: "bad_signature" });
  });

  it("reads keys as openssl writes them, and refuses what is not an Ed25519 key of the right half", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "allot-key-"));
    try {
      const keyFile = path.join(dir, "k.pem");
      execFileSync("openssl", ["genpkey", "-algorithm", "ed25519", "-out", keyFile]);
      const publicPem = execFileSync("openssl", ["pkey", "-in", keyFile, "-pubout"]).toString();
      const privateKey = checkpointPrivateKey(fs.readFileSync(keyFile, "utf8"));
      const publicKey = checkpointPublicKey(publicPem);
      expect(checkCheckpointSignature(signCheckpoint(HEAD, AT, privateKey), publicKey)).toEqual({ valid: true });
      expect(checkpointKeyId(publicKey)).toMatch(/^[0-9a-f]{16}$/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    expect(() => checkpointPrivateKey(rsa.privateKey.export({ type: "pkcs8", format: "pem" }).toString())).toThrow(/must be an Ed25519 key, not rsa/);
    expect(() => checkpointPrivateKey("not a key")).toThrow(CheckpointKeyError);
    expect(() => checkpointPublicKey(generateCheckpointKeyPair().privatePem)).toThrow(/must be the public key, not the private one/);
  });

  it("parses only checkpoints of its format, naming what is wrong", () => {
    const c = signCheckpoint(HEAD, AT, keys().privateKey);
    expect(() => parseSignedCheckpoint({ ...c, format: "other" })).toThrow(/format must be allot.audit-checkpoint.v1/);
    expect(() => parseSignedCheckpoint({ ...c, seq: 0 })).toThrow(/seq must be at least 1/);
    expect(() => parseSignedCheckpoint({ ...c, hash: "xyz" })).toThrow(/hash must be 64 hex digits/);
    expect(() => parseSignedCheckpoint({ ...c, signature: undefined })).toThrow();
  });
});
