CREATE TABLE "node_pool_sizes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"pool_id" uuid NOT NULL,
	"pool_name" text NOT NULL,
	"gpu_model" text,
	"gpus_per_node" integer NOT NULL,
	"node_count" integer NOT NULL,
	"cpu_per_node" double precision NOT NULL,
	"memory_bytes_per_node" bigint NOT NULL,
	"valid_from" timestamp with time zone NOT NULL,
	"valid_to" timestamp with time zone,
	CONSTRAINT "node_pool_sizes_span" CHECK ("node_pool_sizes"."valid_to" is null or "node_pool_sizes"."valid_to" > "node_pool_sizes"."valid_from"),
	CONSTRAINT "node_pool_sizes_counts" CHECK ("node_pool_sizes"."node_count" >= 0 and "node_pool_sizes"."gpus_per_node" >= 0 and "node_pool_sizes"."cpu_per_node" >= 0 and "node_pool_sizes"."memory_bytes_per_node" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX "node_pool_sizes_open_unique" ON "node_pool_sizes" USING btree ("pool_id") WHERE "node_pool_sizes"."valid_to" is null;--> statement-breakpoint
CREATE INDEX "node_pool_sizes_pool_from_idx" ON "node_pool_sizes" USING btree ("pool_id","valid_from");--> statement-breakpoint
-- Backfill: each existing pool holds its present size from when it was recorded or from the first hour of usage, whichever is earlier
-- (the only history there is; before this release every hour was priced on the present pools, so idle cost before it stays as it was,
-- and usage recorded before its pool was never priced against no capacity).
INSERT INTO "node_pool_sizes" ("pool_id", "pool_name", "gpu_model", "gpus_per_node", "node_count", "cpu_per_node", "memory_bytes_per_node", "valid_from", "valid_to")
SELECT "id", "name", "gpu_model", "gpus_per_node", "node_count", "cpu_per_node", "memory_bytes_per_node", LEAST("created_at", COALESCE((SELECT min("hour") FROM "usage_hourly"), "created_at")), NULL FROM "node_pools";
