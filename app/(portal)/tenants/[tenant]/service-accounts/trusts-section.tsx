import { ActionDialog } from "@/components/action-dialog";
import { type FieldSpec } from "@/components/action-form";
import { Cell, DataTable } from "@/components/table";
import { Badge } from "@/components/ui";
import { ISSUER_PRESETS } from "@/lib/federation/commands";
import type { TrustSummary } from "@/lib/federation/queries";
import { createTrustAction, revokeTrustAction } from "../actions";
import { Time } from "@/components/time";

const TRUST_FIELDS: FieldSpec[] = [
  { kind: "text", name: "name", label: "Name", placeholder: "github-main", hint: "Lower-case letters, digits and hyphens." },
  {
    kind: "select",
    name: "issuerPreset",
    label: "Issuer",
    options: [...ISSUER_PRESETS.map((p) => ({ value: p.value, label: `${p.label} (${p.value})` })), { value: "other", label: "Other: a Kubernetes cluster, self-managed GitLab…" }],
  },
  {
    kind: "text",
    name: "issuer",
    label: "Other issuer URL",
    placeholder: "https://kubernetes.default.svc",
    hint: "Only with “Other”. For Kubernetes: the API server's --service-account-issuer (kubectl get --raw /.well-known/openid-configuration).",
  },
  { kind: "text", name: "audience", label: "Audience", placeholder: "allot", hint: "The aud the token must carry: what the job asks its issuer for." },
  {
    kind: "text",
    name: "subjectPattern",
    label: "Subject",
    placeholder: "repo:acme/ml:ref:refs/heads/main",
    hint: "The sub claim, exactly, or with * for any run of characters: repo:acme/ml:*, system:serviceaccount:ml-jobs:pusher.",
  },
  { kind: "textarea", name: "claimConditions", label: "Other claim conditions (JSON, optional)", placeholder: '{"repository_owner": "acme", "ref_protected": true}' },
  { kind: "number", name: "expiresInDays", label: "Trust expires in (days, optional)", min: "1", max: "365", hint: "Empty: until revoked." },
];

/** A service account's trusted OIDC issuers (keyless automation), on its own page: tenant admins add and revoke them. */
export function TrustsSection({ tenant, account, trusts, tokenMinutes }: { tenant: string; account: string; trusts: TrustSummary[]; tokenMinutes: number }) {
  const sa: FieldSpec[] = [
    { kind: "hidden", name: "tenant", value: tenant },
    { kind: "hidden", name: "serviceAccount", value: account },
  ];
  return (
    <section aria-labelledby="trusted-issuers">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h2 id="trusted-issuers" className="text-base font-semibold text-slate-900">Trusted issuers (no stored secret)</h2>
        <ActionDialog
          triggerLabel="Trust an issuer"
          triggerKind="secondary"
          title={`Trust an issuer for ${account}`}
          description={`A job holding a token from this issuer, for this audience, with a matching subject, exchanges it at POST /oauth/token for a token of this account that lives ${tokenMinutes} minutes. Nothing secret is stored.`}
          submitLabel="Trust issuer"
          action={createTrustAction}
          fields={[...sa, ...TRUST_FIELDS]}
        />
      </div>
      {trusts.length === 0 ? (
        <p className="text-sm text-slate-500">None. CI pipelines (GitHub Actions, GitLab) and Kubernetes workloads can act as this account without a stored token once you trust their issuer.</p>
      ) : (
        <DataTable caption={`Trusted issuers of ${account}`} columns={["Name", "Issuer", "Subject and audience", "Last used", "State", ""]}>
          {trusts.map((trust) => (
            <tr key={trust.name}>
              <Cell>{trust.name}</Cell>
              <Cell className="break-all font-mono text-xs">{trust.issuer}</Cell>
              <Cell className="break-all font-mono text-xs">
                {trust.subjectPattern}
                <br />
                aud {trust.audience}
                {Object.keys(trust.claimConditions).length > 0 && (
                  <>
                    <br />
                    {Object.entries(trust.claimConditions)
                      .map(([k, v]) => `${k}=${String(v)}`)
                      .join(", ")}
                  </>
                )}
              </Cell>
              <Cell>{trust.lastUsedAt ? <Time at={trust.lastUsedAt} /> : "never"}</Cell>
              <Cell>
                <Badge tone={trust.state === "active" ? "green" : "slate"}>{trust.state}</Badge>
                {trust.liveTokens > 0 && <span className="ml-1 text-xs text-slate-500">{trust.liveTokens} live</span>}
              </Cell>
              <Cell className="text-right">
                {trust.state === "active" && (
                  <ActionDialog
                    triggerLabel="Revoke"
                    triggerKind="link"
                    danger
                    title={`Revoke trust ${trust.name}?`}
                    description="Tokens from this issuer are refused from now on, and the tokens already exchanged under it stop working."
                    submitLabel="Revoke trust"
                    action={revokeTrustAction}
                    fields={[...sa, { kind: "hidden", name: "trust", value: trust.name }]}
                  />
                )}
              </Cell>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
