ALTER TABLE "cluster_changes" ALTER COLUMN "tenant_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "cluster_objects" ALTER COLUMN "tenant_id" DROP NOT NULL;