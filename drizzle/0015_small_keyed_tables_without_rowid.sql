-- Small rows keyed by text: as WITHOUT ROWID tables, an insert writes one b-tree (the primary key's) instead of the
-- table and its primary key index. drizzle-kit does not express WITHOUT ROWID: a later migration that recreates one
-- of these tables must keep it (test/store/sqlite/sqlite-store.test.ts checks it).
CREATE TABLE `__new_account_import_progress` (
	`import_supplier` text NOT NULL,
	`external_account_number` text NOT NULL,
	`state` text NOT NULL,
	`transfer_status` text,
	`failure_step` text,
	`failure_operation` text,
	`failure_code` text,
	`failure_errors` text,
	`failure_codes` text,
	`failed_at` text,
	`failed_position` integer,
	PRIMARY KEY(`import_supplier`, `external_account_number`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_account_import_progress`(`import_supplier`, `external_account_number`, `state`, `transfer_status`, `failure_step`, `failure_operation`, `failure_code`, `failure_errors`, `failure_codes`, `failed_at`, `failed_position`) SELECT `import_supplier`, `external_account_number`, `state`, `transfer_status`, `failure_step`, `failure_operation`, `failure_code`, `failure_errors`, `failure_codes`, `failed_at`, `failed_position` FROM `account_import_progress`;
--> statement-breakpoint
DROP TABLE `account_import_progress`;
--> statement-breakpoint
ALTER TABLE `__new_account_import_progress` RENAME TO `account_import_progress`;
--> statement-breakpoint
CREATE INDEX `account_import_progress_failures_idx` ON `account_import_progress` (`import_supplier`,`failed_position`);
--> statement-breakpoint
CREATE TABLE `__new_account_historical_statements` (
	`import_supplier` text NOT NULL,
	`external_account_number` text NOT NULL,
	`statement_id` text NOT NULL,
	`bill_period_from_date` text NOT NULL,
	`bill_period_to_date` text NOT NULL,
	`issued_date` text,
	`number` text,
	`gross_amount_cents` integer,
	`statement_path` text,
	`source` text NOT NULL,
	`imported_at` text NOT NULL,
	PRIMARY KEY(`import_supplier`, `external_account_number`, `statement_id`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_account_historical_statements`(`import_supplier`, `external_account_number`, `statement_id`, `bill_period_from_date`, `bill_period_to_date`, `issued_date`, `number`, `gross_amount_cents`, `statement_path`, `source`, `imported_at`) SELECT `import_supplier`, `external_account_number`, `statement_id`, `bill_period_from_date`, `bill_period_to_date`, `issued_date`, `number`, `gross_amount_cents`, `statement_path`, `source`, `imported_at` FROM `account_historical_statements`;
--> statement-breakpoint
DROP TABLE `account_historical_statements`;
--> statement-breakpoint
ALTER TABLE `__new_account_historical_statements` RENAME TO `account_historical_statements`;
--> statement-breakpoint
CREATE TABLE `__new_account_notes` (
	`import_supplier` text NOT NULL,
	`external_account_number` text NOT NULL,
	`sequence` integer NOT NULL,
	`body` text,
	`created_at` text NOT NULL,
	`created_at_given` integer NOT NULL,
	`is_pinned` integer NOT NULL,
	`unpin_at` text,
	`document_paths` text NOT NULL,
	`source` text NOT NULL,
	`recorded_at` text NOT NULL,
	PRIMARY KEY(`import_supplier`, `external_account_number`, `sequence`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_account_notes`(`import_supplier`, `external_account_number`, `sequence`, `body`, `created_at`, `created_at_given`, `is_pinned`, `unpin_at`, `document_paths`, `source`, `recorded_at`) SELECT `import_supplier`, `external_account_number`, `sequence`, `body`, `created_at`, `created_at_given`, `is_pinned`, `unpin_at`, `document_paths`, `source`, `recorded_at` FROM `account_notes`;
--> statement-breakpoint
DROP TABLE `account_notes`;
--> statement-breakpoint
ALTER TABLE `__new_account_notes` RENAME TO `account_notes`;
--> statement-breakpoint
CREATE TABLE `__new_account_ledgers` (
	`import_supplier` text NOT NULL,
	`external_account_number` text NOT NULL,
	`balance_cents` integer NOT NULL,
	`transaction_count` integer NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`import_supplier`, `external_account_number`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_account_ledgers`(`import_supplier`, `external_account_number`, `balance_cents`, `transaction_count`, `updated_at`) SELECT `import_supplier`, `external_account_number`, `balance_cents`, `transaction_count`, `updated_at` FROM `account_ledgers`;
--> statement-breakpoint
DROP TABLE `account_ledgers`;
--> statement-breakpoint
ALTER TABLE `__new_account_ledgers` RENAME TO `account_ledgers`;
