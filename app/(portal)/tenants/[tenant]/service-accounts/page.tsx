import { notFound, redirect } from "next/navigation";
import { ActionDialog } from "@/components/action-dialog";
import { type FieldSpec } from "@/components/action-form";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { config } from "@/lib/config";
import { tenantServiceAccounts } from "@/lib/tenancy/service-account-queries";
import { tenantAccess } from "@/lib/tenancy/queries";
import { rolesInForce, TOKEN_PLACEHOLDER, tokenExample } from "@/lib/tenancy/token-example";
import { absoluteUrl } from "@/lib/server/request-url";
import {
  createServiceAccountAction,
  deleteServiceAccountAction,
  grantProjectRoleAction,
  revokeProjectGrantAction,
  mintTokenAction,
  revokeTokenAction,
  rotateTokenAction,
  setServiceAccountDisabledAction,
  updateServiceAccountAction,
} from "../actions";
import { TenantHeader } from "../tenant-header";
import { TrustsSection } from "./trusts-section";
import { Time } from "@/components/time";

export const metadata = { title: "Service accounts" };

const EXPIRY_FIELDS: FieldSpec[] = [
  { kind: "number", name: "expiresInDays", label: "Expires in (days)", defaultValue: "90", min: "1", max: "365" },
  { kind: "checkbox", name: "noExpiry", label: "No expiry: I confirm this token never expires", hint: "Leave the days empty when you tick this." },
];

export default async function ServiceAccountsPage({ params }: { params: Promise<{ tenant: string }> }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const detail = await tenantAccess(ctx, (await params).tenant);
  if (!detail) notFound();
  const { accounts, canManage, projects } = await tenantServiceAccounts(ctx, detail.tenant.slug);
  const baseUrl = await absoluteUrl("/");
  const t: FieldSpec = { kind: "hidden", name: "tenant", value: detail.tenant.slug };

  return (
    <>
      <TenantHeader
        detail={detail}
        actions={
          canManage ? (
            <ActionDialog
              triggerLabel="New service account"
              title="New service account"
              description="A machine identity owned by the tenant, not by you: it keeps working when people leave. Give it project roles from its card here or from a project page."
              submitLabel="Create"
              action={createServiceAccountAction}
              fields={[t, { kind: "text", name: "name", label: "Name", placeholder: "ci-pipeline", hint: "Lower-case letters, digits and hyphens." }, { kind: "textarea", name: "description", label: "Description" }]}
            />
          ) : undefined
        }
      />
      {accounts.length === 0 ? (
        <EmptyState title="No service accounts">
          {canManage ? "Create one for automation (CI pipelines, schedulers) with “New service account”, then mint a token for it." : "Tenant admins create service accounts for automation."}
        </EmptyState>
      ) : (
        <div className="space-y-6">
          {accounts.map((a) => {
            const sa: FieldSpec[] = [t, { kind: "hidden", name: "serviceAccount", value: a.name }];
            const example = tokenExample(baseUrl, rolesInForce(detail.tenant.slug, a.projectRoles, ctx.now), ctx.now);
            const noRole = a.projectRoles.every((r) => r.expiresAt !== null && r.expiresAt.getTime() <= ctx.now.getTime());
            return (
              <Card
                key={a.principalId}
                title={a.name}
                description={
                  <>
                    {a.description || "No description."} Created <Time at={a.createdAt} day />
                    {a.createdBy ? ` by ${a.createdBy}` : ""}. {a.disabled && <Badge tone="red">disabled</Badge>}
                  </>
                }
                actions={
                  canManage ? (
                    <div className="flex gap-3">
                      <ActionDialog
                        triggerLabel="Mint token"
                        triggerKind="secondary"
                        title={`New token for ${a.name}`}
                        description={
                          noRole
                            ? `${example.reach} Set a role with “Set project role” on this card before or after minting. The token is shown once.`
                            : `${example.reach} The token is shown once. Store it in your secret manager.`
                        }
                        submitLabel="Mint token"
                        action={mintTokenAction}
                        fields={[...sa, ...EXPIRY_FIELDS]}
                      />
                      <ActionDialog
                        triggerLabel="Edit"
                        triggerKind="link"
                        title={`Edit ${a.name}`}
                        description="The name is fixed; the description is free text."
                        submitLabel="Save"
                        action={updateServiceAccountAction}
                        fields={[...sa, { kind: "textarea", name: "description", label: "Description", defaultValue: a.description }]}
                      />
                      <ActionDialog
                        triggerLabel={a.disabled ? "Enable" : "Disable"}
                        triggerKind="link"
                        danger={!a.disabled}
                        title={a.disabled ? `Enable ${a.name}?` : `Disable ${a.name}?`}
                        description={a.disabled ? "Its tokens work again." : "Every request with its tokens is refused until you enable it again. Nothing is deleted."}
                        submitLabel={a.disabled ? "Enable" : "Disable"}
                        action={setServiceAccountDisabledAction}
                        fields={[...sa, ...(a.disabled ? [] : [{ kind: "hidden" as const, name: "disabled", value: "on" }])]}
                      />
                      <ActionDialog
                        triggerLabel="Delete"
                        triggerKind="link"
                        danger
                        title={`Delete ${a.name}?`}
                        description="Its tokens and project roles are removed. Its audit history stays."
                        submitLabel="Delete service account"
                        action={deleteServiceAccountAction}
                        fields={sa}
                      />
                    </div>
                  ) : undefined
                }
              >
                <div className="mb-3 text-sm text-slate-700">
                  <p>
                    Project roles:{" "}
                    {a.projectRoles.length === 0 ? <span className="text-slate-600">none yet: its tokens can do nothing but say who they are</span> : null}
                  </p>
                  {a.projectRoles.length > 0 && (
                    <ul className="mt-1 space-y-1" aria-label={`Project roles of ${a.name}`}>
                      {a.projectRoles.map((r) => (
                        <li key={r.grantId} className="flex flex-wrap items-center gap-x-3">
                          <span>
                            {r.projectName} ({r.role}){r.expiresAt ? <>, until <Time at={r.expiresAt} /></> : ""}
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
                  {canManage && projects.length > 0 && (
                    <div className="mt-2">
                      <ActionDialog
                        triggerLabel="Set project role"
                        triggerKind="secondary"
                        title={`Set a project role for ${a.name}`}
                        description="Member works in the project through the API (asks for quota, reads spend); viewer reads it; meter only pushes usage. Setting a role on a project where it holds one replaces it."
                        submitLabel="Set role"
                        action={grantProjectRoleAction}
                        fields={[
                          t,
                          { kind: "hidden", name: "principalId", value: a.principalId },
                          { kind: "select", name: "project", label: "Project", options: projects.map((p) => ({ value: p.slug, label: p.name })) },
                          { kind: "select", name: "role", label: "Role", options: [{ value: "member", label: "member" }, { value: "viewer", label: "viewer" }, { value: "meter", label: "meter (pushes usage only)" }] },
                        ]}
                      />
                    </div>
                  )}
                </div>
                {canManage && (
                  <figure className="mb-3">
                    <figcaption className="text-xs font-medium text-slate-700">Use a token of {a.name} (the token replaces {TOKEN_PLACEHOLDER}; it is filled in only when a token is minted)</figcaption>
                    <pre tabIndex={0} className="mt-1 overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-900 p-2 font-mono text-xs text-slate-100" data-testid="token-example">
                      {example.command}
                    </pre>
                  </figure>
                )}
                {canManage &&
                  (a.tokens.length === 0 ? (
                    <p className="text-sm text-slate-500">No tokens. Mint one to use the API as this account.</p>
                  ) : (
                    <DataTable caption={`Tokens of ${a.name}`} columns={["Prefix", "Created", "Expires", "Last used", "State", ""]}>
                      {a.tokens.map((tok) => (
                        <tr key={tok.prefix}>
                          <Cell className="font-mono text-xs">allot_{tok.prefix}_…</Cell>
                          <Cell><Time at={tok.createdAt} day /></Cell>
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
                  ))}
                {canManage && <TrustsSection tenant={detail.tenant.slug} account={a.name} trusts={a.trusts} tokenMinutes={config().federation.tokenMinutes} />}
              </Card>
            );
          })}
        </div>
      )}
    </>
  );
}
