CREATE TABLE `idempotency_keys` (
	`key_id` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`request_path` text NOT NULL,
	`event_positions` text NOT NULL,
	`status` integer,
	`response_body` text,
	`response_content_type` text,
	`created_at` text NOT NULL,
	`completed_at` text,
	PRIMARY KEY(`key_id`, `idempotency_key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_at_idx` ON `idempotency_keys` (`created_at`);