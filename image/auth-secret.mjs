// Where the portal's session secret (AUTH_SECRET) comes from, for `npm start` and the image's `allot serve`:
//   1. AUTH_SECRET itself;
//   2. else the file named by AUTH_SECRET_FILE (a mounted Kubernetes Secret, for example);
//   3. else, on the embedded database only, <ALLOT_DATA_DIR>/auth-secret.
// On the embedded database a missing file is created with a random secret, so a zero-set-up start
// keeps its sessions across restarts. On PostgreSQL it is never created: replicas must share one
// secret, so a missing one is an error (the server then names AUTH_SECRET).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export class AuthSecretError extends Error {}

const MIN_LENGTH = 32;

/** Sets env.AUTH_SECRET when it can be found or made; returns where it came from, or null when it stays unset. */
export function resolveAuthSecret(env = process.env) {
  if (env.AUTH_SECRET) return "AUTH_SECRET";
  const embedded = !env.DATABASE_URL;
  const file = env.AUTH_SECRET_FILE || (embedded ? path.join(env.ALLOT_DATA_DIR || ".data", "auth-secret") : null);
  if (!file) return null;
  const named = env.AUTH_SECRET_FILE ? `AUTH_SECRET_FILE (${file})` : file;
  if (!fs.existsSync(file)) {
    if (!embedded) throw new AuthSecretError(`${named} does not exist. With DATABASE_URL every replica must use the same secret: mount it there, or set AUTH_SECRET.`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    try {
      fs.writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
    } catch (error) {
      if (error.code !== "EEXIST") throw new AuthSecretError(`could not create ${named}: ${error.message}`);
    }
  }
  let secret;
  try {
    secret = fs.readFileSync(file, "utf8").trim();
  } catch (error) {
    throw new AuthSecretError(`could not read ${named}: ${error.message}`);
  }
  if (secret.length < MIN_LENGTH) throw new AuthSecretError(`${named} must hold a secret of at least ${MIN_LENGTH} characters (try: openssl rand -base64 32)`);
  env.AUTH_SECRET = secret;
  return named;
}

/** For the start scripts: resolve the secret, or say why not and stop the start. */
export function setAuthSecretOrExit(env = process.env) {
  try {
    resolveAuthSecret(env);
  } catch (error) {
    if (!(error instanceof AuthSecretError)) throw error;
    console.error(`[allot] ${error.message}`);
    process.exit(1);
  }
}
