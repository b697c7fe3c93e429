export class AuthSecretError extends Error {}
/** Sets env.AUTH_SECRET when it can be found or made; returns where it came from, or null when it stays unset. */
export function resolveAuthSecret(env?: Record<string, string | undefined>): string | null;
/** For the start scripts: resolve the secret, or say why not and stop the start. */
export function setAuthSecretOrExit(env?: Record<string, string | undefined>): void;
