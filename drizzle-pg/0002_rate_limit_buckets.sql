CREATE TABLE "rate_limit_buckets" (
	"name" text PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"updated_at_ms" bigint NOT NULL
);
