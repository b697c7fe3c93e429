import { KIND_LABELS } from "./assign";
import type { ReviewItem } from "./queries";

/**
 * Columns of a review's result as CSV (lib/csv.ts writes it): one line per
 * item, undecided ones with empty decision columns, in the order of the page.
 */
export const REVIEW_CSV_COLUMNS = [
  { header: "Item", value: (i: ReviewItem) => i.access },
  { header: "Principal", value: (i: ReviewItem) => i.principalLabel },
  { header: "Email", value: (i: ReviewItem) => i.principalEmail },
  { header: "Kind", value: (i: ReviewItem) => KIND_LABELS[i.kind] },
  { header: "Reviewer", value: (i: ReviewItem) => i.reviewerLabel },
  { header: "Decision", value: (i: ReviewItem) => (i.decision === null ? "" : i.decision === "keep" ? (i.flagged ? "kept, flagged" : "kept") : "revoked") },
  { header: "Decided at", value: (i: ReviewItem) => i.decidedAt },
  { header: "By whom", value: (i: ReviewItem) => i.decidedByLabel },
  { header: "Note", value: (i: ReviewItem) => i.note },
] as const;
