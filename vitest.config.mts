import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = { "@": path.resolve(import.meta.dirname), "server-only": path.resolve(import.meta.dirname, "test/server-only-stub.ts") };

/**
 * Four projects:
 * - unit: pure logic, `*.test.ts` beside the code.
 * - integration: `*.int.test.ts`, against a real database: PGlite by default,
 *   PostgreSQL when DATABASE_URL is set (see test/database.ts). Files run one
 *   at a time because they share that database.
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
          include: ["{lib,db,app,test,cli}/**/*.int.test.ts"],
          environment: "node",
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
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
