import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { ActionDialog } from "@/components/action-dialog";
import { buttonClass } from "@/components/button-class";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { allTenantsForAdmin } from "@/lib/tenancy/queries";
import { createTenantAction, setTenantStatusAction } from "./actions";
import { Time } from "@/components/time";

export const metadata = { title: "Admin" };

export default async function AdminPage() {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const tenants = await allTenantsForAdmin(ctx);
  if (!tenants) notFound();

  return (
    <>
      <PageHeader
        title="Admin"
        subtitle="Every tenant on the platform."
        actions={
          <>
            <Link href="/admin/requests" className={buttonClass()}>
              Approval queue
            </Link>
            <Link href="/admin/cluster" className={buttonClass()}>
              Cluster
            </Link>
            <Link href="/admin/capacity" className={buttonClass()}>
              Capacity and prices
            </Link>
            <Link href="/admin/spend" className={buttonClass()}>
              Spend
            </Link>
            <Link href="/admin/webhooks" className={buttonClass()}>
              Webhooks
            </Link>
            <Link href="/admin/reviews" className={buttonClass()}>
              Access reviews
            </Link>
            <Link href="/admin/audit" className={buttonClass()}>
              Audit log
            </Link>
            <ActionDialog
              triggerLabel="New tenant"
              title="New tenant"
              description="A tenant is a team sharing the cluster. Its projects become namespaces named after its slug."
              submitLabel="Create tenant"
              action={createTenantAction}
              fields={[
                { kind: "text", name: "name", label: "Name", placeholder: "Vision Lab" },
                { kind: "text", name: "slug", label: "Slug", placeholder: "vision-lab", hint: "Lower-case letters, digits and hyphens, at most 24. Cannot change later." },
                { kind: "text", name: "costCentre", label: "Cost centre", placeholder: "CC-4100", hint: "Carried as a label on every namespace, for chargeback." },
                {
                  kind: "select",
                  name: "isolationTier",
                  label: "Isolation tier",
                  defaultValue: "shared",
                  options: [
                    { value: "shared", label: "Shared node pools" },
                    { value: "dedicated", label: "Dedicated node pool" },
                  ],
                },
                { kind: "text", name: "firstAdmins", label: "First tenant admins", placeholder: "lead@example.com, ops@example.com", hint: "Emails, comma-separated. They become tenant admins at once (accounts are linked on first sign-in)." },
              ]}
            />
          </>
        }
      />
      <Card title="Tenants" description={`${tenants.length} tenant${tenants.length === 1 ? "" : "s"}`}>
        {tenants.length === 0 ? (
          <EmptyState title="No tenants yet">Create the first tenant with “New tenant”. Its projects then become namespaces on the cluster.</EmptyState>
        ) : (
          <DataTable caption="All tenants" columns={["Tenant", "Slug", "Tier", "Cost centre", "Projects", "Members", "Status", "Created", ""]}>
            {tenants.map((t) => (
              <tr key={t.id}>
                <Cell>
                  <Link href={`/tenants/${t.slug}`} className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-900">
                    {t.name}
                  </Link>
                </Cell>
                <Cell className="font-mono text-xs">{t.slug}</Cell>
                <Cell>{t.isolationTier}</Cell>
                <Cell>{t.costCentre || "—"}</Cell>
                <Cell>{t.projectCount}</Cell>
                <Cell>{t.memberCount}</Cell>
                <Cell>
                  <Badge tone={t.status === "active" ? "green" : "red"}>{t.status}</Badge>
                </Cell>
                <Cell className="text-slate-600"><Time at={t.createdAt} day /></Cell>
                <Cell className="text-right">
                  <ActionDialog
                    triggerLabel={t.status === "active" ? "Disable" : "Enable"}
                    triggerKind="link"
                    danger={t.status === "active"}
                    title={t.status === "active" ? `Disable ${t.name}?` : `Enable ${t.name}?`}
                    description={
                      t.status === "active"
                        ? "Its members, collaborators and service accounts lose access at once. Nothing is deleted; you can enable it again."
                        : "Its members, collaborators and service accounts regain the access they had."
                    }
                    submitLabel={t.status === "active" ? "Disable tenant" : "Enable tenant"}
                    action={setTenantStatusAction}
                    fields={[
                      { kind: "hidden", name: "tenant", value: t.slug },
                      { kind: "hidden", name: "status", value: t.status === "active" ? "disabled" : "active" },
                    ]}
                  />
                </Cell>
              </tr>
            ))}
          </DataTable>
        )}
      </Card>
    </>
  );
}
