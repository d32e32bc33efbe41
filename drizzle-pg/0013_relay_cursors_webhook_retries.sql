CREATE TABLE "relay_cursors" (
	"name" text PRIMARY KEY NOT NULL,
	"position" bigint NOT NULL,
	"holder" text,
	"lease_expires_at_ms" bigint,
	"replay_seq" bigint NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_retries" (
	"endpoint_id" text NOT NULL,
	"position" bigint NOT NULL,
	"ordering_key" text NOT NULL,
	"attempts" bigint NOT NULL,
	"next_attempt_at_ms" bigint,
	"first_failed_at_ms" bigint NOT NULL,
	CONSTRAINT "webhook_retries_pkey" PRIMARY KEY("endpoint_id","position")
);
--> statement-breakpoint
CREATE INDEX "webhook_retries_key_idx" ON "webhook_retries" USING btree ("endpoint_id","ordering_key","position");