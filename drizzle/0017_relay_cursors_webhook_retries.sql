CREATE TABLE `relay_cursors` (
	`name` text PRIMARY KEY NOT NULL,
	`position` integer NOT NULL,
	`holder` text,
	`lease_expires_at_ms` integer,
	`replay_seq` integer NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `webhook_retries` (
	`endpoint_id` text NOT NULL,
	`position` integer NOT NULL,
	`ordering_key` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at_ms` integer,
	`first_failed_at_ms` integer NOT NULL,
	PRIMARY KEY(`endpoint_id`, `position`)
);
--> statement-breakpoint
CREATE INDEX `webhook_retries_key_idx` ON `webhook_retries` (`endpoint_id`,`ordering_key`,`position`);