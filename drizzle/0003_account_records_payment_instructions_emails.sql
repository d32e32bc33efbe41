CREATE TABLE `account_historical_statements` (
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
);
--> statement-breakpoint
CREATE TABLE `account_ledger_transactions` (
	`import_supplier` text NOT NULL,
	`external_account_number` text NOT NULL,
	`transaction_id` text NOT NULL,
	`position` integer NOT NULL,
	`type` text NOT NULL,
	`transaction_date` text NOT NULL,
	`original_transaction_date` text,
	`amount_cents` integer NOT NULL,
	`balance_effect_cents` integer NOT NULL,
	`transaction` text NOT NULL,
	`added_at` text NOT NULL,
	PRIMARY KEY(`import_supplier`, `external_account_number`, `transaction_id`)
);
--> statement-breakpoint
CREATE INDEX `account_ledger_transactions_date_idx` ON `account_ledger_transactions` (`import_supplier`,`external_account_number`,`transaction_date`,`position`);--> statement-breakpoint
CREATE TABLE `account_ledgers` (
	`import_supplier` text NOT NULL,
	`external_account_number` text NOT NULL,
	`balance_cents` integer NOT NULL,
	`transaction_count` integer NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`import_supplier`, `external_account_number`)
);
--> statement-breakpoint
CREATE TABLE `account_notes` (
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
);
--> statement-breakpoint
CREATE TABLE `customer_emails` (
	`email_id` text PRIMARY KEY NOT NULL,
	`import_supplier` text NOT NULL,
	`external_account_number` text NOT NULL,
	`platform_account_number` text NOT NULL,
	`customer_index` integer NOT NULL,
	`recipient` text NOT NULL,
	`subject` text NOT NULL,
	`body` text NOT NULL,
	`queue_position` integer NOT NULL,
	`status` text NOT NULL,
	`attempt` integer NOT NULL,
	`due_at` text,
	`lease_expires_at` text,
	`last_error` text,
	`failure_outcome` text,
	`message_id` text,
	`queued_at` text NOT NULL,
	`sent_at` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customer_emails_queue_position_unique` ON `customer_emails` (`queue_position`);--> statement-breakpoint
CREATE INDEX `customer_emails_queue_idx` ON `customer_emails` (`status`,`queue_position`);--> statement-breakpoint
CREATE INDEX `customer_emails_account_idx` ON `customer_emails` (`import_supplier`,`external_account_number`);--> statement-breakpoint
CREATE TABLE `payment_instructions` (
	`import_supplier` text NOT NULL,
	`external_account_number` text NOT NULL,
	`reference` text NOT NULL,
	`platform_account_number` text NOT NULL,
	`vendor` text NOT NULL,
	`type` text NOT NULL,
	`vendor_status` text NOT NULL,
	`vendor_details` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`import_supplier`, `external_account_number`, `reference`)
);
