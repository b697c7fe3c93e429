/** A project role a service account holds, as its page lists them. */
export interface AccountProjectRole {
  tenantSlug: string;
  projectSlug: string;
  projectName: string;
  role: "member" | "viewer" | "meter";
}

export interface TokenExample {
  /** What a token of the account may do, in a sentence, said before and when the token is shown. */
  reach: string;
  /** A ready command against this portal's API; the token placeholder is replaced only in the one-time view. */
  command: string;
}

export const TOKEN_PLACEHOLDER = "$ALLOT_TOKEN";

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The previous whole hour, as a usage sample names it. */
const lastHour = (now: Date) => new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000 - 3_600_000).toISOString().replace(".000Z", "Z");

/**
 * What a token of a service account can do with the roles it holds, and a
 * curl command that does it: pushing usage for a metering role, reading the
 * project's quota for any other, and, with no role at all, reading who it is,
 * the only thing such a token can do.
 */
export function tokenExample(baseUrl: string, roles: readonly AccountProjectRole[], now: Date, token = TOKEN_PLACEHOLDER): TokenExample {
  const base = baseUrl.replace(/\/+$/, "");
  const auth = `-H ${shellQuote(`Authorization: Bearer ${token}`)}`;
  if (roles.length === 0) {
    return {
      reach: "It holds no project role, so a token can do nothing yet but say who it is (GET /api/v1/me). Give it a role on a project first.",
      command: `curl ${auth} ${base}/api/v1/me`,
    };
  }
  const names = roles.map((r) => `${r.projectName} (${r.role})`).join(", ");
  const reader = roles.find((r) => r.role !== "meter");
  if (reader) {
    return {
      reach: `A token acts with its roles: ${names}.`,
      command: `curl ${auth} ${base}/api/v1/tenants/${reader.tenantSlug}/projects/${reader.projectSlug}/quota`,
    };
  }
  const meter = roles[0]!;
  const body = JSON.stringify({ samples: [{ tenant: meter.tenantSlug, project: meter.projectSlug, resource: "gpu:H100", hour: lastHour(now), quantity: 2 }] });
  return {
    reach: `A token may push usage for ${names}, and do nothing else.`,
    command: `curl -X POST ${auth} -H 'Content-Type: application/json' -d ${shellQuote(body)} ${base}/api/v1/usage`,
  };
}

/** The roles of an account's list (projectRoles of tenantServiceAccounts) that count at `now`, as tokenExample takes them. */
export function rolesInForce(tenantSlug: string, roles: readonly { projectSlug: string; projectName: string; role: string; expiresAt: Date | null }[], now: Date): AccountProjectRole[] {
  return roles
    .filter((r) => r.expiresAt === null || r.expiresAt.getTime() > now.getTime())
    .map((r) => ({ tenantSlug, projectSlug: r.projectSlug, projectName: r.projectName, role: r.role === "meter" || r.role === "viewer" ? r.role : "member" }));
}
