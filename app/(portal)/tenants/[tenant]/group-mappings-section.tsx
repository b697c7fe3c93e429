import { ActionDialog } from "@/components/action-dialog";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState } from "@/components/ui";
import type { GroupMappingRow } from "@/lib/groups/queries";
import { mapGroupAction, unmapGroupAction } from "./actions";
import { Time } from "@/components/time";

const ROLE_LABEL = { tenant_admin: "Tenant admin", member: "Member", viewer: "Viewer" } as const;

/**
 * "Groups from your identity provider" on the tenant page: which IdP groups
 * hold which role here. Shown to those who may manage them (tenant admins,
 * platform admins).
 */
export function GroupMappingsSection({
  tenantSlug,
  tenantName,
  mappings,
  projects,
  groupsClaim,
  recheckMinutes,
}: {
  tenantSlug: string;
  tenantName: string;
  mappings: GroupMappingRow[];
  projects: { slug: string; name: string }[];
  groupsClaim: string;
  recheckMinutes: number;
}) {
  const t = { kind: "hidden" as const, name: "tenant", value: tenantSlug };
  return (
    <Card
      title="Groups from your identity provider"
      description={
        <>
          Everyone in a mapped group holds its role here while they are in it. Membership comes from SCIM and from the <code className="font-mono text-xs">{groupsClaim}</code> claim at sign-in. A
          removal through SCIM applies at once; through the claim within {recheckMinutes} minutes, when the session is re-checked.
        </>
      }
      actions={
        <ActionDialog
          triggerLabel="Map a group"
          triggerKind="secondary"
          title="Map a group to a role"
          description="The group is matched by name, ignoring surrounding spaces and the case of A–Z: the claim's value, or the SCIM group's displayName or externalId."
          submitLabel="Map group"
          action={mapGroupAction}
          fields={[
            t,
            { kind: "text", name: "group", label: "Group", placeholder: "vision-lab-admins", required: true, hint: "As your identity provider names it (Entra ID: the object id when the claim sends ids)." },
            {
              kind: "select",
              name: "project",
              label: "Applies to",
              options: [{ value: "", label: `The whole tenant (${tenantName})` }, ...projects.map((p) => ({ value: p.slug, label: `Project ${p.name}` }))],
              defaultValue: "",
            },
            {
              kind: "select",
              name: "role",
              label: "Role",
              options: [
                { value: "member", label: "Member: works in projects it is granted (on a project: works there)" },
                { value: "viewer", label: "Viewer: reads" },
                { value: "tenant_admin", label: "Tenant admin: manages the tenant (whole tenant only)" },
              ],
              defaultValue: "member",
            },
          ]}
        />
      }
    >
      {mappings.length === 0 ? (
        <EmptyState title="No groups mapped">Map a group to give everyone in it a role here, instead of adding people one by one.</EmptyState>
      ) : (
        <DataTable caption={`Identity provider groups with a role in ${tenantName}`} columns={["Group", "Applies to", "Role", "People now", "Mapped", ""]}>
          {mappings.map((m) => (
            <tr key={m.id}>
              <Cell className="font-mono text-xs">{m.groupName}</Cell>
              <Cell>{m.project ? `Project ${m.project.name}` : "Whole tenant"}</Cell>
              <Cell>
                <Badge tone={m.role === "tenant_admin" ? "blue" : "slate"}>{ROLE_LABEL[m.role]}</Badge>
              </Cell>
              <Cell className="tabular-nums">{m.people}</Cell>
              <Cell className="text-slate-600">
                <Time at={m.createdAt} day />
                {m.createdBy && <p className="text-xs text-slate-500">by {m.createdBy}</p>}
              </Cell>
              <Cell className="text-right">
                <ActionDialog
                  triggerLabel="Remove"
                  triggerKind="link"
                  danger
                  title={`Remove the mapping of ${m.groupName}?`}
                  description={`Its ${m.people} ${m.people === 1 ? "person loses" : "people lose"} what the group gave ${m.project ? `on ${m.project.name}` : "in the tenant"} on their next request; direct roles stay.`}
                  submitLabel="Remove mapping"
                  action={unmapGroupAction}
                  fields={[t, { kind: "hidden", name: "mappingId", value: m.id }]}
                />
              </Cell>
            </tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}
