import { toCsv } from "@/lib/csv";
import { csvDownload } from "@/lib/server/csv-download";
import { ACCESS_CSV_COLUMNS } from "@/lib/tenancy/access-csv";
import { projectDetail } from "@/lib/tenancy/queries";

export async function GET(_request: Request, { params }: { params: Promise<{ tenant: string; project: string }> }) {
  const { tenant, project } = await params;
  return csvDownload(async (ctx) => {
    const detail = await projectDetail(ctx, tenant, project);
    return detail ? { csv: toCsv(detail.access, ACCESS_CSV_COLUMNS), filename: `${detail.project.namespace}-access.csv` } : null;
  });
}
