CREATE TABLE `events` (
	`global_position` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`stream_id` text NOT NULL,
	`stream_position` integer NOT NULL,
	`type` text NOT NULL,
	`schema_version` integer NOT NULL,
	`data` text NOT NULL,
	`metadata` text NOT NULL,
	`event_id` text NOT NULL,
	`recorded_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_stream_id_stream_position_unique` ON `events` (`stream_id`,`stream_position`);--> statement-breakpoint
CREATE UNIQUE INDEX `events_event_id_unique` ON `events` (`event_id`);--> statement-breakpoint
CREATE INDEX `events_type_idx` ON `events` (`type`);--> statement-breakpoint
CREATE TABLE `service_secrets` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `import_suppliers` (
	`code` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`send_emails` integer NOT NULL,
	`document_root` text,
	`stream_version` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `operations_teams` (
	`name` text PRIMARY KEY NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`key_id` text PRIMARY KEY NOT NULL,
	`key_hash` text NOT NULL,
	`suppliers` text NOT NULL,
	`label` text,
	`created_at` text NOT NULL,
	`revoked_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `account_import_processes` (
	`import_supplier` text NOT NULL,
	`external_account_number` text NOT NULL,
	`state` text NOT NULL,
	`platform_account_number` text,
	`operations_team_name` text,
	`transfer_status` text NOT NULL,
	`stage_count` integer NOT NULL,
	`first_staged_at` text NOT NULL,
	`last_staged_at` text NOT NULL,
	`account_created_at` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`import_supplier`, `external_account_number`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `account_import_processes_platform_account_number_unique` ON `account_import_processes` (`platform_account_number`);--> statement-breakpoint
CREATE INDEX `account_import_processes_list_idx` ON `account_import_processes` (`import_supplier`,`state`,`first_staged_at`);--> statement-breakpoint
CREATE TABLE `service_config` (
	`key` text PRIMARY KEY NOT NULL,
	`value` integer,
	`updated_at` text NOT NULL
);
