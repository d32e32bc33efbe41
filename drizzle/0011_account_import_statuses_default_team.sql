CREATE TABLE `account_import_statuses` (
	`import_supplier` text NOT NULL,
	`external_account_number` text NOT NULL,
	`status` text NOT NULL,
	`platform_identifier` text,
	`created_at` text NOT NULL,
	`modified_at` text NOT NULL,
	`latest_event` text NOT NULL,
	`latest_event_at` text NOT NULL,
	`latest_event_data` text,
	`latest_error_code` text,
	`latest_error_detail` text,
	`latest_error_domain` text,
	`task_id` text,
	`is_dry_run` integer,
	`operations_team_name` text,
	`window_end` text,
	`claim_id` text,
	`due_at` text,
	PRIMARY KEY(`import_supplier`, `external_account_number`)
);
--> statement-breakpoint
CREATE INDEX `account_import_statuses_due_idx` ON `account_import_statuses` (`due_at`);--> statement-breakpoint
ALTER TABLE `import_suppliers` ADD `default_operations_team_name` text;