import { toCsv } from "@/lib/csv";
import { REVIEW_CSV_COLUMNS } from "@/lib/reviews/csv";
import { reviewDetail } from "@/lib/reviews/queries";
import { csvDownload } from "@/lib/server/csv-download";

/** The review's result as CSV: the items this person may see, as on the page. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return csvDownload(async (ctx) => {
    const detail = await reviewDetail(ctx, id);
    return detail ? { csv: toCsv(detail.items, REVIEW_CSV_COLUMNS), filename: `access-review-${detail.review.openedAt.toISOString().slice(0, 10)}-${id.slice(0, 8)}.csv` } : null;
  });
}
