CREATE TABLE `rate_limit_buckets` (
	`name` text PRIMARY KEY NOT NULL,
	`tokens` real NOT NULL,
	`updated_at_ms` integer NOT NULL
);
