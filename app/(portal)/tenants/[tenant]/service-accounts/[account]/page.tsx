import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { z } from "zod";
import { ActionDialog } from "@/components/action-dialog";
import type { FieldSpec } from "@/components/action-form";
import { AuditEventsTable } from "@/components/audit-log";
import { buttonClass } from "@/components/button-class";
import { Cell, DataTable } from "@/components/table";
import { Time } from "@/components/time";
import { Badge, Card, PageHeader, tenantCrumbs } from "@/components/ui";
import { serviceAccountAuditEvents } from "@/lib/audit/queries";
import { currentContext } from "@/lib/auth/current-actor";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { wholeNumber } from "@/lib/input/numbers";
import { absoluteUrl } from "@/lib/server/request-url";
import { serviceAccountName } from "@/lib/tenancy/commands/service-accounts";
import { serviceAccountDetail } from "@/lib/tenancy/service-account-queries";
import { rolesInForce, TOKEN_PLACEHOLDER, tokenExample } from "@/lib/tenancy/token-example";
import {
  deleteServiceAccountFromPageAction,
  grantProjectRoleAction,
  mintTokenWithRoleAction,
  revokeProjectGrantAction,
  revokeTokenAction,
  rotateTokenAction,
  setServiceAccountDisabledAction,
  updateServiceAccountAction,
} from "../../actions";
import { accountFields, EXPIRY_FIELDS, ROLE_MEANINGS, ROLE_OPTIONS } from "../fields";
import { TrustsSection } from "../trusts-section";

export const metadata = { title: "Service account" };

const HISTORY = 20;
const historyPage = z.object({ before: wholeNumber("before", { min: 1, max: Number.MAX_SAFE_INTEGER, empty: undefined }) });

type Params = Promise<{ tenant: string; account: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** One service account: what it is, its project roles, its tokens, how to use one, and what happened to it. */
export default async function ServiceAccountPage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const { tenant: tenantSlug, account: rawName } = await params;
  const name = serviceAccountName.safeParse(decodeURIComponent(rawName));
  if (!name.success) notFound();
  const detail = await serviceAccountDetail(ctx, tenantSlug, name.data).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  });
  const { tenant, account: a, canManage, projects } = detail;
  const page = historyPage.safeParse(await searchParams);
  const history = await serviceAccountAuditEvents(
    ctx,
    { tenantId: tenant.id, principalId: a.principalId, tokenPrefixes: a.tokens.map((t) => t.prefix) },
    { before: page.success ? page.data.before : undefined, limit: HISTORY },
  );
  const roles = rolesInForce(tenant.slug, a.projectRoles, ctx.now);
  const example = tokenExample(await absoluteUrl("/"), roles, ctx.now);
  const listPath = `/tenants/${tenant.slug}/service-accounts`;
  const path = `${listPath}/${a.name}`;
  const t: FieldSpec = { kind: "hidden", name: "tenant", value: tenant.slug };
  const sa = accountFields(tenant.slug, a.name);
  const activeTokens = a.tokens.filter((tok) => tok.state === "active").length;
  // With no role in force, the mint dialog offers one, so the new token can do something.
  const roleChoice: FieldSpec[] =
    roles.length === 0 && projects.length > 0
      ? [
          {
            kind: "select",
            name: "project",
            label: "Project role (optional)",
            hint: "Set in the same step as the token: both are written, or neither.",
            options: [{ value: "", label: "No role: the token only says who it is" }, ...projects.map((p) => ({ value: p.slug, label: p.name }))],
            defaultValue: "",
          },
          { kind: "select", name: "role", label: "Role on that project", hint: ROLE_MEANINGS, options: ROLE_OPTIONS },
        ]
      : [];

  return (
    <>
      <PageHeader
        crumbs={[...tenantCrumbs(tenant, false), { href: listPath, label: "Service accounts" }]}
        title={a.name}
        subtitle={
          <>
            Service account of {tenant.name} · <Badge tone={a.disabled ? "red" : "green"}>{a.disabled ? "disabled" : "active"}</Badge> · created <Time at={a.createdAt} day />
            {a.createdBy ? ` by ${a.createdBy}` : ""}
          </>
        }
        actions={
          canManage ? (
            <>
              <ActionDialog
                triggerLabel="Edit"
                triggerKind="secondary"
                title={`Edit ${a.name}`}
                description="The name is fixed; the description is free text."
                submitLabel="Save"
                action={updateServiceAccountAction}
                fields={[...sa, { kind: "textarea", name: "description", label: "Description", defaultValue: a.description }]}
              />
              <ActionDialog
                triggerLabel={a.disabled ? "Enable" : "Disable"}
                triggerKind="secondary"
                title={a.disabled ? `Enable ${a.name}?` : `Disable ${a.name}?`}
                description={a.disabled ? "Its tokens work again." : "Every request with its tokens is refused until you enable it again. Nothing is deleted."}
                submitLabel={a.disabled ? "Enable" : "Disable"}
                action={setServiceAccountDisabledAction}
                fields={[...sa, ...(a.disabled ? [] : [{ kind: "hidden" as const, name: "disabled", value: "on" }])]}
              />
              <ActionDialog
                triggerLabel="Delete"
                triggerKind="secondary"
                danger
                title={`Delete ${a.name}?`}
                description="Its tokens and project roles are removed. Its audit history stays."
                submitLabel="Delete service account"
                action={deleteServiceAccountFromPageAction}
                fields={sa}
              />
            </>
          ) : undefined
        }
      />
      <div className="space-y-6">
        <Card title="About">
          <p className="text-sm text-slate-700">{a.description || "No description."}</p>
          {a.disabled && <p className="mt-2 text-sm text-red-700">Disabled: every request with its tokens is refused.</p>}
        </Card>

        <Card
          title="Project roles"
          description="Where its tokens may act."
          actions={
            canManage && projects.length > 0 ? (
              <ActionDialog
                triggerLabel="Set project role"
                triggerKind="secondary"
                title={`Set a project role for ${a.name}`}
                description={`${ROLE_MEANINGS} Setting a role on a project where it holds one replaces it.`}
                submitLabel="Set role"
                action={grantProjectRoleAction}
                fields={[
                  t,
                  { kind: "hidden", name: "principalId", value: a.principalId },
                  { kind: "select", name: "project", label: "Project", options: projects.map((p) => ({ value: p.slug, label: p.name })) },
                  { kind: "select", name: "role", label: "Role", options: ROLE_OPTIONS },
                ]}
              />
            ) : undefined
          }
        >
          {a.projectRoles.length === 0 ? (
            <p className="text-sm text-slate-600">None yet: its tokens can do nothing but say who they are.{canManage ? " Set a role here, or when you mint a token." : ""}</p>
          ) : (
            <ul className="space-y-2 text-sm text-slate-700" aria-label={`Project roles of ${a.name}`}>
              {a.projectRoles.map((r) => (
                <li key={r.grantId} className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1">
                  <span>
                    <Link href={`/tenants/${tenant.slug}/projects/${r.projectSlug}`} className="font-medium text-brand-700 hover:underline">
                      {r.projectName}
                    </Link>{" "}
                    ({r.role}){r.expiresAt ? <>, until <Time at={r.expiresAt} /></> : ""}
                  </span>
                  {canManage && (
                    <ActionDialog
                      triggerLabel={`Remove role on ${r.projectName}`}
                      triggerKind="link"
                      danger
                      title={`Remove ${a.name}'s role on ${r.projectName}?`}
                      description="Its tokens lose what this role allowed at once."
                      submitLabel="Remove role"
                      action={revokeProjectGrantAction}
                      fields={[t, { kind: "hidden", name: "project", value: r.projectSlug }, { kind: "hidden", name: "grantId", value: r.grantId }]}
                    />
                  )}
                </li>
              ))}
            </ul>
          )}
        </Card>

        {canManage && (
          <Card
            title="Tokens"
            description={a.tokens.length === 0 ? undefined : activeTokens === 0 ? "No active token." : `${activeTokens} active ${activeTokens === 1 ? "token" : "tokens"}.`}
            actions={
              <ActionDialog
                triggerLabel="Mint token"
                triggerKind="secondary"
                title={`New token for ${a.name}`}
                description={
                  roles.length === 0
                    ? `It holds no project role, so a token minted without one can do nothing but say who it is (GET /api/v1/me).${projects.length > 0 ? " Choose a role below to let it work in a project." : ""} The token is shown once.`
                    : `${example.reach} The token is shown once. Store it in your secret manager.`
                }
                submitLabel="Mint token"
                action={mintTokenWithRoleAction}
                fields={[...sa, ...roleChoice, ...EXPIRY_FIELDS]}
              />
            }
          >
            {a.tokens.length === 0 ? (
              <p className="text-sm text-slate-600">No tokens yet. Mint one to use the API as this account; it is shown once, when minted.</p>
            ) : (
              <DataTable caption={`Tokens of ${a.name}`} columns={["Prefix", "Created", "Expires", "Last used", "State", ""]}>
                {a.tokens.map((tok) => (
                  <tr key={tok.prefix}>
                    <Cell className="font-mono text-xs">allot_{tok.prefix}_…</Cell>
                    <Cell>
                      <Time at={tok.createdAt} day />
                    </Cell>
                    <Cell>{tok.expiresAt ? <Time at={tok.expiresAt} /> : "never"}</Cell>
                    <Cell>{tok.lastUsedAt ? <Time at={tok.lastUsedAt} /> : "never"}</Cell>
                    <Cell>
                      <Badge tone={tok.state === "active" ? "green" : "slate"}>{tok.state}</Badge>
                    </Cell>
                    <Cell className="space-x-3 whitespace-nowrap text-right">
                      {tok.state === "active" && (
                        <>
                          <ActionDialog
                            triggerLabel="Rotate"
                            triggerKind="link"
                            title={`Rotate token ${tok.prefix}`}
                            description="A new token is minted now; the old one keeps working for the grace period so automation can switch over."
                            submitLabel="Rotate"
                            action={rotateTokenAction}
                            fields={[...sa, { kind: "hidden", name: "prefix", value: tok.prefix }, { kind: "number", name: "graceHours", label: "Grace period (hours)", defaultValue: "24", min: "0", max: "720", hint: "0 ends the old token at once." }, ...EXPIRY_FIELDS]}
                          />
                          <ActionDialog
                            triggerLabel="Revoke"
                            triggerKind="link"
                            danger
                            title={`Revoke token ${tok.prefix}?`}
                            description="Requests with it are refused from now on."
                            submitLabel="Revoke token"
                            action={revokeTokenAction}
                            fields={[...sa, { kind: "hidden", name: "prefix", value: tok.prefix }]}
                          />
                        </>
                      )}
                    </Cell>
                  </tr>
                ))}
              </DataTable>
            )}
          </Card>
        )}

        {canManage && (
          <Card title="Use a token" description={example.reach}>
            <figure>
              <figcaption className="text-xs font-medium text-slate-700">
                A ready request with a token of {a.name} (the token replaces {TOKEN_PLACEHOLDER}; it is filled in when a token is minted)
              </figcaption>
              <pre tabIndex={0} className="mt-1 overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-900 p-2 font-mono text-xs text-slate-100" data-testid="token-example">
                {example.command}
              </pre>
            </figure>
          </Card>
        )}

        {canManage && (
          <Card>
            <TrustsSection tenant={tenant.slug} account={a.name} trusts={a.trusts} tokenMinutes={config().federation.tokenMinutes} />
          </Card>
        )}

        {history && (
          <Card title="Recent activity" description="What it did with its tokens, and what was done to it, its tokens and its roles; newest first.">
            {history.events.length === 0 ? (
              <p className="text-sm text-slate-600">{page.success && page.data.before ? "No older events." : "Nothing recorded yet."}</p>
            ) : (
              <AuditEventsTable events={history.events} showTenant={false} caption={`Recent activity of ${a.name}`} />
            )}
            {history.older !== null && (
              <Link href={`${path}?before=${history.older}`} className={`${buttonClass()} mt-3`}>
                Older events
              </Link>
            )}
          </Card>
        )}
      </div>
    </>
  );
}
