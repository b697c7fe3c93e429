CREATE TABLE "federation_exchanges" (
	"key" text PRIMARY KEY NOT NULL,
	"trust_id" uuid,
	"exchanged_at" timestamp with time zone NOT NULL,
	"subject_expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "federation_trusts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"service_account_id" uuid NOT NULL,
	"name" text NOT NULL,
	"issuer" text NOT NULL,
	"audience" text NOT NULL,
	"subject_pattern" text NOT NULL,
	"claim_conditions" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" uuid,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "federation_trust_id" uuid;--> statement-breakpoint
ALTER TABLE "federation_exchanges" ADD CONSTRAINT "federation_exchanges_trust_id_federation_trusts_id_fk" FOREIGN KEY ("trust_id") REFERENCES "public"."federation_trusts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "federation_trusts" ADD CONSTRAINT "federation_trusts_service_account_id_service_accounts_principal_id_fk" FOREIGN KEY ("service_account_id") REFERENCES "public"."service_accounts"("principal_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "federation_trusts" ADD CONSTRAINT "federation_trusts_created_by_principals_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."principals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "federation_exchanges_expiry_idx" ON "federation_exchanges" USING btree ("subject_expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "federation_trusts_account_name_unique" ON "federation_trusts" USING btree ("service_account_id","name");--> statement-breakpoint
CREATE INDEX "federation_trusts_issuer_idx" ON "federation_trusts" USING btree ("issuer");--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_federation_trust_id_federation_trusts_id_fk" FOREIGN KEY ("federation_trust_id") REFERENCES "public"."federation_trusts"("id") ON DELETE cascade ON UPDATE no action;