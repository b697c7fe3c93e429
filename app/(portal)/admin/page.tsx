import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { CreateTenantDialog } from "@/components/create-tenant-dialog";
import { Cell, DataTable } from "@/components/table";
import { Badge, Card, EmptyState, formatDate, PageHeader } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { allTenantsForAdmin } from "@/lib/tenancy/queries";
import { createTenantAction } from "./actions";

export const metadata = { title: "Admin" };

export default async function AdminPage() {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const tenants = await allTenantsForAdmin(ctx);
  if (!tenants) notFound();

  return (
    <>
      <PageHeader title="Admin" subtitle="Every tenant on the platform." actions={<CreateTenantDialog action={createTenantAction} />} />
      <Card title="Tenants" description={`${tenants.length} tenant${tenants.length === 1 ? "" : "s"}`}>
        {tenants.length === 0 ? (
          <EmptyState title="No tenants yet">Create the first tenant with “New tenant”. Its projects then become namespaces on the cluster.</EmptyState>
        ) : (
          <DataTable caption="All tenants" columns={["Tenant", "Slug", "Tier", "Cost centre", "Projects", "Members", "Status", "Created"]}>
            {tenants.map((t) => (
              <tr key={t.id}>
                <Cell>
                  <Link href={`/tenants/${t.slug}`} className="font-medium text-slate-900 hover:underline">
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
                <Cell className="text-slate-600">{formatDate(t.createdAt)}</Cell>
              </tr>
            ))}
          </DataTable>
        )}
      </Card>
    </>
  );
}
