CREATE TABLE `webhook_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`endpoint_id` text NOT NULL,
	`message_id` text NOT NULL,
	`event_type` text NOT NULL,
	`position` integer NOT NULL,
	`attempt` integer NOT NULL,
	`status_code` integer,
	`duration_ms` integer NOT NULL,
	`error` text,
	`outcome` text NOT NULL,
	`attempted_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_endpoint_idx` ON `webhook_attempts` (`endpoint_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_attempts_endpoint_outcome_idx` ON `webhook_attempts` (`endpoint_id`,`outcome`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_attempts_attempted_at_idx` ON `webhook_attempts` (`attempted_at`);--> statement-breakpoint
CREATE TABLE `webhook_secrets` (
	`endpoint_id` text NOT NULL,
	`secret_id` text NOT NULL,
	`secret` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text,
	PRIMARY KEY(`endpoint_id`, `secret_id`)
);
--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`import_supplier` text NOT NULL,
	`url` text NOT NULL,
	`event_types` text NOT NULL,
	`description` text,
	`status` text NOT NULL,
	`disabled_reason` text,
	`disabled_detail` text,
	`disabled_at` text,
	`current_secret_id` text NOT NULL,
	`replay_seq` integer NOT NULL,
	`replay_from_position` integer,
	`created_position` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`removed` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_supplier_idx` ON `webhook_endpoints` (`import_supplier`,`id`);