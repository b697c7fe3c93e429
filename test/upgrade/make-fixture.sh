#!/usr/bin/env bash
# Regenerates test/upgrade/<version>/ from that release's commit:
#   migrations/  the release's db/migrations folder, as it was tagged
#   data.sql     what the release's own code writes: its demo seed (seedDemoData), then as an operator
#                would with its CLI: a platform admin, a service account with a project role and a
#                token, a reconcile of everything worked off in record-only mode; dumped from PostgreSQL as
#                plain INSERTs (no COPY), so the upgrade test loads it into PGlite and PostgreSQL alike
#   seeded-at    the instant the seed ran (its data is dated relative to it)
# Usage: test/upgrade/make-fixture.sh 0.1.0 15198fe
# Needs: git, a local PostgreSQL (PGHOST/PGUSER, default 127.0.0.1 and postgres), this checkout's
# node_modules (a release's dependencies must be a subset of today's: checked below).
set -euo pipefail
version="${1:?usage: make-fixture.sh <version> <commit>}"
commit="${2:?usage: make-fixture.sh <version> <commit>}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/test/upgrade/$version"
export PGHOST="${PGHOST:-127.0.0.1}" PGUSER="${PGUSER:-postgres}"
work="$(mktemp -d)"
db="allot_fixture_$$"
url="postgres://$PGUSER@$PGHOST:${PGPORT:-5432}/$db"
cleanup() {
  dropdb --if-exists "$db" || true
  git -C "$root" worktree remove --force "$work/src" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

git -C "$root" worktree add --detach "$work/src" "$commit" >/dev/null
# The release runs on today's node_modules: refuse when it named a dependency at another version.
node -e '
  const [then, now] = process.argv.slice(1).map((f) => require(f));
  const bad = Object.entries({ ...then.dependencies, ...then.devDependencies }).filter(([n, v]) => ({ ...now.dependencies, ...now.devDependencies })[n] !== v);
  if (bad.length) { console.error("dependencies differ from today'\''s: " + bad.map(([n, v]) => n + "@" + v).join(", ")); process.exit(1); }
' "$work/src/package.json" "$root/package.json"
ln -s "$root/node_modules" "$work/src/node_modules"
cat > "$work/src/seed-fixture.ts" <<'TS'
import { openDatabase } from "@/db/client";
import { runMigrations } from "@/db/migrate";
import { seedDemoData } from "@/db/seed";
import { grantPlatformAdmin } from "@/lib/auth/platform-admins";
import { queueReconcileOfEverything } from "@/lib/cluster/commands";
import { reconcileDue } from "@/lib/cluster/worker";
import { parseConfig } from "@/lib/config";
import { createServiceAccountAsOperator, mintTokenAsOperator } from "@/lib/tenancy/operator";

async function main() {
  const target = { kind: "postgres", url: process.env.DATABASE_URL! } as const;
  const handle = openDatabase(target);
  try {
    await runMigrations(handle, target);
    const at = new Date(process.env.SEEDED_AT!);
    const later = (minutes: number) => new Date(at.getTime() + minutes * 60_000);
    if (!(await seedDemoData(handle.db, at))) throw new Error("the seed did not run");
    const cli = { principalId: null, label: "system:cli" };
    await grantPlatformAdmin(handle.db, "ops@example.com", cli, later(1));
    await createServiceAccountAsOperator(handle.db, { tenant: "vision-lab", name: "ci-bot", description: "CI", projectRoles: [{ project: "detector-training", role: "member" }] }, later(2));
    await mintTokenAsOperator(handle.db, "vision-lab", "ci-bot", later(60 * 24 * 30), later(3));
    await queueReconcileOfEverything(handle.db, later(4));
    const settings = parseConfig({}).cluster;
    await reconcileDue({ db: handle.db, settings, client: null, clock: () => later(5), workerId: "fixture" });
  } finally {
    await handle.close();
  }
}
main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
TS
createdb "$db"
seeded_at="$(date -u +%Y-%m-%dT%H:00:00.000Z)"
(cd "$work/src" && DATABASE_URL="$url" SEEDED_AT="$seeded_at" node --import tsx --conditions=react-server seed-fixture.ts)

rm -rf "$out"
mkdir -p "$out"
git -C "$root" archive "$commit" db/migrations | tar -x -C "$out" --strip-components=1
# Data only (the schema is the migrations'), public schema only (drizzle's own bookkeeping is
# written again when the test migrates), INSERTs with column names, no owners or grants.
pg_dump --data-only --column-inserts --schema=public --no-owner --no-privileges --no-comments "$url" \
  | grep -v -E '^(SET |SELECT pg_catalog\.set_config|--|$)' > "$out/data.sql"
echo "$seeded_at" > "$out/seeded-at"
echo "test/upgrade/$version: $(ls "$out/migrations" | grep -c '\.sql$') migrations, $(grep -c '^INSERT' "$out/data.sql") rows, seeded at $seeded_at"
