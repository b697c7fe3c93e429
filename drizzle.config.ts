import { defineConfig } from "drizzle-kit";

// Migrations are generated from the schema and committed; they run unchanged on
// PGlite and PostgreSQL, so use nothing newer than PostgreSQL 15.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
});
