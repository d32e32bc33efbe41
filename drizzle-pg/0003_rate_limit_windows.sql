CREATE TABLE "rate_limit_windows" (
	"name" text PRIMARY KEY NOT NULL,
	"starts_ms" text NOT NULL,
	"paused_until_ms" bigint NOT NULL
);
