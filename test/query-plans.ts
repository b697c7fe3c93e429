import { sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import { rowsOf } from "@/db/rows";
import type { RecordedStatement } from "./sql-statements";

/**
 * EXPLAIN of a recorded statement with sequential scans switched off: the
 * planner picks a sequential scan on the small tables of a test anyway, so
 * "off" makes a test about whether an index exists to use, not about this
 * data's size. A plan that still scans a table in full has no index to use.
 */

/** A statement's text with its parameters as literals, for EXPLAIN (which cannot take bound parameters here). */
export function inlined(s: RecordedStatement): string {
  return s.text.replace(/\$(\d+)/g, (_, n: string) => {
    const v = s.params[Number(n) - 1];
    if (v === null || v === undefined) return "null";
    if (typeof v === "number" || typeof v === "bigint") return String(v);
    const text = v instanceof Date ? v.toISOString() : typeof v === "string" ? v : JSON.stringify(v);
    return `'${text.replace(/'/g, "''")}'`;
  });
}

type PlanNode = { "Node Type": string; "Relation Name"?: string; Plans?: PlanNode[] };
const nodesOf = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodesOf)];

/** A relation the plan reads, by which node, with the partitioned table it belongs to (its own name when it is none's partition). */
export type PlannedRead = { node: string; relation: string; table: string };

/** Every relation the statement's plan reads, with enable_seqscan off; a partition is named with its parent table. */
export async function plannedReadsOf(db: Database, statement: RecordedStatement): Promise<PlannedRead[]> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_seqscan = off`);
    const [row] = await rowsOf<{ "QUERY PLAN": unknown }>(tx, sql.raw(`explain (format json) ${inlined(statement)}`));
    const raw = row!["QUERY PLAN"];
    const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
    const parents = new Map(
      (await rowsOf<{ child: string; parent: string }>(tx, sql`select c.relname as child, p.relname as parent from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent`)).map(
        (r) => [r.child, r.parent],
      ),
    );
    return nodesOf(plan[0]!.Plan)
      .filter((n) => n["Relation Name"] !== undefined)
      .map((n) => ({ node: n["Node Type"], relation: n["Relation Name"]!, table: parents.get(n["Relation Name"]!) ?? n["Relation Name"]! }));
  });
}

/**
 * The tables among `tables` that the statement's plan reads by a Seq Scan with
 * enable_seqscan off, each named once; a Seq Scan of a partition (the usage
 * tables' months) counts as one of its partitioned table.
 */
export async function fullScansOf(db: Database, statement: RecordedStatement, tables: readonly string[]): Promise<string[]> {
  const scanned = (await plannedReadsOf(db, statement)).filter((r) => r.node === "Seq Scan" && tables.includes(r.table)).map((r) => r.table);
  return [...new Set(scanned)];
}

/**
 * The statement without its final ORDER BY … LIMIT: under those the planner may
 * walk an index in order and filter every row (no Seq Scan, yet the whole table
 * read). Without them, only an index that serves the conditions keeps the plan
 * off a full scan, which is what a test of the conditions wants to know.
 */
export function withoutOrderAndLimit(s: RecordedStatement): RecordedStatement {
  return { ...s, text: s.text.replace(/\s+order by [^()]*?\s+limit \$\d+\s*$/i, "") };
}
