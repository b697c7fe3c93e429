import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from "node:crypto";
import { z } from "zod";
import { canonicalJson } from "./chain";

/**
 * A signed checkpoint of the audit chain's head: {seq, hash, time} signed with
 * Ed25519 by a key the database never holds. The hash chain already shows an
 * event changed or removed in the middle; a checkpoint kept outside the
 * database also shows the newest events removed (the log ends before the
 * checkpoint's seq) or rewritten and re-hashed (the hash at that seq differs).
 */

export const CHECKPOINT_FORMAT = "allot.audit-checkpoint.v1";

export type AuditCheckpoint = {
  format: typeof CHECKPOINT_FORMAT;
  seq: number;
  hash: string;
  /** When it was signed (ISO 8601, UTC). */
  at: string;
  /** Which key signed it (see checkpointKeyId), so a rotated key is told apart from a forgery. */
  keyId: string;
};

export type SignedCheckpoint = AuditCheckpoint & { signature: string };

const signedCheckpointSchema = z.object({
  format: z.literal(CHECKPOINT_FORMAT, { message: `format must be ${CHECKPOINT_FORMAT}` }),
  seq: z.number({ message: "seq must be a number" }).int("seq must be a whole number").min(1, "seq must be at least 1"),
  hash: z.string().regex(/^[0-9a-f]{64}$/, "hash must be 64 hex digits"),
  at: z.iso.datetime({ message: "at must be an ISO 8601 time" }),
  keyId: z.string().regex(/^[0-9a-f]{16}$/, "keyId must be 16 hex digits"),
  signature: z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/, "signature must be base64"),
});

export class CheckpointFormatError extends Error {}

/** A checkpoint read from a file, a log line or a webhook body; refuses anything not of this format. */
export function parseSignedCheckpoint(value: unknown): SignedCheckpoint {
  const parsed = signedCheckpointSchema.safeParse(value);
  if (!parsed.success) throw new CheckpointFormatError(parsed.error.issues.map((i) => i.message).join("; "));
  return parsed.data;
}

/** The bytes that are signed: every field but the signature, as canonical JSON. */
export function checkpointSigningInput(c: AuditCheckpoint): Buffer {
  return Buffer.from(canonicalJson({ format: c.format, seq: c.seq, hash: c.hash, at: c.at, keyId: c.keyId }), "utf8");
}

/** The first 16 hex digits of the SHA-256 of the public key (SPKI DER): short, and names one key. */
export function checkpointKeyId(publicKey: KeyObject): string {
  return createHash("sha256").update(publicKey.export({ type: "spki", format: "der" })).digest("hex").slice(0, 16);
}

export function signCheckpoint(head: { seq: number; hash: string }, at: Date, privateKey: KeyObject): SignedCheckpoint {
  const checkpoint: AuditCheckpoint = { format: CHECKPOINT_FORMAT, seq: head.seq, hash: head.hash, at: at.toISOString(), keyId: checkpointKeyId(createPublicKey(privateKey)) };
  // Ed25519 hashes internally: node:crypto takes null as the digest.
  const signature = sign(null, checkpointSigningInput(checkpoint), privateKey).toString("base64");
  return { ...checkpoint, signature };
}

export type SignatureCheck = { valid: true } | { valid: false; reason: "other_key" | "bad_signature" };

/**
 * Whether `publicKey` signed this checkpoint as it stands. A checkpoint of
 * another key is told apart (keys get rotated), but it is refused all the same.
 */
export function checkCheckpointSignature(c: SignedCheckpoint, publicKey: KeyObject): SignatureCheck {
  if (c.keyId !== checkpointKeyId(publicKey)) return { valid: false, reason: "other_key" };
  const ok = verify(null, checkpointSigningInput(c), publicKey, Buffer.from(c.signature, "base64"));
  return ok ? { valid: true } : { valid: false, reason: "bad_signature" };
}

export class CheckpointKeyError extends Error {}

/** An Ed25519 private key from PEM (PKCS#8, as `openssl genpkey -algorithm ed25519` writes it). */
export function checkpointPrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new CheckpointKeyError("is not a PEM private key (make one with: openssl genpkey -algorithm ed25519)");
  }
  if (key.asymmetricKeyType !== "ed25519") throw new CheckpointKeyError(`must be an Ed25519 key, not ${key.asymmetricKeyType ?? "a symmetric key"}`);
  return key;
}

/** An Ed25519 public key from PEM (SPKI, as `openssl pkey -pubout` writes it). */
export function checkpointPublicKey(pem: string): KeyObject {
  // createPublicKey would derive the public half from a private key: a private key here is a mistake to point out.
  if (/PRIVATE KEY-----/.test(pem)) throw new CheckpointKeyError("must be the public key, not the private one (derive it with: openssl pkey -in <private key> -pubout)");
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new CheckpointKeyError("is not a PEM public key (derive it with: openssl pkey -in <private key> -pubout)");
  }
  if (key.asymmetricKeyType !== "ed25519") throw new CheckpointKeyError(`must be an Ed25519 key, not ${key.asymmetricKeyType ?? "unknown"}`);
  return key;
}

export function generateCheckpointKeyPair(): { privatePem: string; publicPem: string; keyId: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privatePem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    keyId: checkpointKeyId(publicKey),
  };
}
