import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = { "@": path.resolve(import.meta.dirname), "server-only": path.resolve(import.meta.dirname, "test/server-only-stub.ts") };

/**
 * Five projects:
 * - unit: pure logic, `*.test.ts` beside the code.
 * - integration: `*.int.test.ts`, against a real database: PGlite by default,
 *   PostgreSQL when DATABASE_URL is set (see test/database.ts). Files run in
 *   parallel, each worker with a database of its own (an in-memory PGlite per
 *   file; on PostgreSQL a database per worker beside DATABASE_URL's), as
 *   many workers as cores and at least two: most of a file's time is spent
 *   waiting on a database or a child process.
 * - cli: `cli/*.int.test.ts`, the operator CLI as separate processes on
 *   embedded database directories of their own, whatever DATABASE_URL says;
 *   so npm test runs it once, with the PGlite integration run, not again on
 *   PostgreSQL.
 * - replicas: `test/replicas/*.replicas.test.ts`, portal processes of the
 *   production build on one PostgreSQL; npm test runs them after the build
 *   when DATABASE_URL is set.
 * - build: `test/build-output/*.build.test.ts`, checks of the production
 *   build's output in .next (first-load JavaScript budgets); npm test runs
 *   them right after the build.
 */
// Test runs log warnings and errors only (an access or command line per call would bury the
// report); the tests of the logs set their own level, and the replica test its portals'.
process.env.LOG_LEVEL ||= "warn";

const INTEGRATION_WORKERS = Math.max(2, os.availableParallelism());

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: { name: "unit", include: ["{lib,db,components,app,image,deploy}/**/*.test.ts"], exclude: ["**/*.int.test.ts", "node_modules/**"], environment: "node" },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["{lib,db,app,test}/**/*.int.test.ts"],
          environment: "node",
          env: { ALLOT_TEST_DATABASE_PER_WORKER: "1" },
          globalSetup: ["test/integration-global-setup.ts"],
          maxWorkers: INTEGRATION_WORKERS,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        // The same workers as integration: vitest runs projects together only when they agree on it.
        test: { name: "cli", include: ["cli/**/*.int.test.ts"], environment: "node", maxWorkers: INTEGRATION_WORKERS, testTimeout: 30_000, hookTimeout: 60_000 },
      },
      {
        resolve: { alias },
        test: { name: "build", include: ["test/build-output/**/*.build.test.ts"], environment: "node" },
      },
      {
        resolve: { alias },
        test: {
          name: "replicas",
          include: ["test/replicas/**/*.replicas.test.ts"],
          environment: "node",
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
