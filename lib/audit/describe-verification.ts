import type { AuditVerification } from "./verify-with-checkpoints";

export type VerificationSummary = {
  /** ok: chain and checkpoints agree; unchecked: the chain is intact but nothing outside the database vouches for its end; failed: something was changed or removed. */
  status: "ok" | "unchecked" | "failed";
  lines: string[];
  /** The lines that report a problem (a broken chain, missing or changed events, a refused checkpoint): the CLI writes these to stderr. */
  findings: string[];
};

const range = (from: number, to: number) => (from === to ? `Event ${from} is` : `Events ${from}–${to} are`);

const CANNOT_CHECK = "so events removed from the end of the log would go unnoticed";

/** What a verification found, in sentences for the CLI and the audit page alike. */
export function describeAuditVerification(v: AuditVerification): VerificationSummary {
  const lines: string[] = [];
  const findings: string[] = [];
  const finding = (line: string) => {
    lines.push(line);
    findings.push(line);
  };
  if (v.chain.intact) lines.push(`Hash chain intact: ${v.chain.events} events verified.`);
  else {
    finding(`Hash chain BROKEN at event ${v.chain.broken.seq}: ${v.chain.broken.reason} (${v.chain.events} events before it verified).`);
  }
  const tail = v.tail;
  if (tail.state === "unchecked") {
    lines.push(
      tail.reason === "no_key"
        ? `The newest events cannot be checked: no checkpoint key is configured (ALLOT_AUDIT_CHECKPOINT_KEY_FILE or ALLOT_AUDIT_CHECKPOINT_PUBLIC_KEY_FILE), ${CANNOT_CHECK}.`
        : tail.reason === "no_source"
          ? `The newest events cannot be checked: no checkpoint directory is configured (ALLOT_AUDIT_CHECKPOINT_DIR) and no checkpoint file was given, ${CANNOT_CHECK}.`
          : `The newest events cannot be checked: no checkpoint signed by this key was found in ${tail.where}, ${CANNOT_CHECK}.`,
    );
  } else {
    const { latest, missing, changed, uncovered } = tail.comparison;
    if (missing) {
      const end = v.head ? `the log ends at event ${v.head.seq}` : "the log is empty";
      finding(`${range(missing.from, missing.to)} MISSING: the checkpoint of ${latest.at} was signed at event ${latest.seq}, but ${end}.`);
    }
    if (changed) {
      const what =
        changed.from === changed.to
          ? `the log's event ${changed.to} has another hash than the one signed, so it was changed or replaced`
          : `the log's event ${changed.to} has another hash than the one signed, so at least one of these events was changed or replaced`;
      finding(`${range(changed.from, changed.to)} CHANGED since the checkpoint of ${changed.checkpoint.at}: ${what}.`);
    }
    if (!missing && !changed) {
      lines.push(`The log matches the newest checkpoint (event ${latest.seq}, signed ${latest.at})${tail.comparison.compared > 1 ? ` and ${tail.comparison.compared - 1} earlier ones` : ""}.`);
    }
    if (uncovered > 0) lines.push(`${uncovered} newer event${uncovered === 1 ? " is" : "s are"} not covered by a checkpoint yet.`);
  }
  for (const r of tail.refused) {
    finding(`Refused checkpoint ${r.source}: ${r.reason}.`);
  }
  if (tail.otherKey > 0) lines.push(`${tail.otherKey} checkpoint${tail.otherKey === 1 ? "" : "s"} signed by another key ${tail.otherKey === 1 ? "was" : "were"} passed over (an earlier key?).`);
  return { status: findings.length > 0 ? "failed" : tail.state === "unchecked" ? "unchecked" : "ok", lines, findings };
}
