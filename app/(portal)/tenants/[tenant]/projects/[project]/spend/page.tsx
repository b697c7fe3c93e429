import { redirect } from "next/navigation";
import { BudgetForm } from "@/components/spend/budget-form";
import { SpendView } from "@/components/spend/spend-view";
import { Badge, PageHeader, projectCrumbs } from "@/components/ui";
import { currentContext } from "@/lib/auth/current-actor";
import { can, isCollaboratorOn } from "@/lib/auth/policy";
import { config } from "@/lib/config";
import { projectBudget } from "@/lib/metering/commands/budget";
import { projectSpendReport } from "@/lib/metering/report";
import { spendPageData, type SearchParams } from "@/lib/server/spend-json";
import { projectBySlugs } from "@/lib/tenancy/lookup";
import { setProjectBudgetAction } from "./actions";

type Params = Promise<{ tenant: string; project: string }>;

export async function generateMetadata({ params }: { params: Params }) {
  const { tenant, project } = await params;
  return { title: `Spend · ${project} · ${tenant}` };
}

export default async function ProjectSpendPage({ params, searchParams }: { params: Params; searchParams: Promise<SearchParams> }) {
  const ctx = await currentContext();
  if (!ctx) redirect("/sign-in");
  const { tenant: tenantSlug, project: projectSlug } = await params;
  // The report decides access (notFound when out of reach); the page then needs only the two rows, not the project's access lists.
  const { data, query, urlErrors } = await spendPageData(ctx, await searchParams, (c, window) => projectSpendReport(c, tenantSlug, projectSlug, window));
  const { tenant, project } = await projectBySlugs(ctx.db, tenantSlug, projectSlug);
  const resource = { kind: "project", tenantId: tenant.id, projectId: project.id } as const;
  const open = project.archivedAt === null && tenant.status === "active";
  const manageBudget = open && can(ctx.actor, "project.budget.manage", resource, ctx.now);
  const budget = manageBudget ? await projectBudget(ctx.db, project.id) : null;
  const collaborator = isCollaboratorOn(ctx.actor, tenant.id) && !ctx.actor.isPlatformAdmin;
  const base = `/tenants/${tenant.slug}/projects/${project.slug}`;

  return (
    <>
      <PageHeader
        crumbs={projectCrumbs(tenant, project, collaborator)}
        title="Spend"
        subtitle={
          <>
            What {project.name} costs in {data.currency}: metered usage × the rate card price in force at each hour.
            {!open && (
              <>
                {" "}
                <Badge tone="red">{project.archivedAt ? "archived" : "tenant disabled"}</Badge>
              </>
            )}
          </>
        }
      />
      <SpendView
        dataUrl={`${base}/spend/data`}
        exportUrl={`${base}/spend/export`}
        initial={data}
        initialQuery={query}
        urlErrors={urlErrors}
        idleThreshold={config().gpuIdle.threshold}
        budgetForm={
          manageBudget ? (
            <BudgetForm
              action={setProjectBudgetAction}
              tenant={tenant.slug}
              project={project.slug}
              currency={data.currency}
              monthlyAmount={budget?.monthlyAmount ?? null}
              version={budget?.version ?? 0}
            />
          ) : undefined
        }
      />
    </>
  );
}
