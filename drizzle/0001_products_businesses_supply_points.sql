CREATE TABLE `business_contracts` (
	`import_supplier` text NOT NULL,
	`contract_identifier` text NOT NULL,
	`external_business_identifier` text NOT NULL,
	`valid_from_date` text,
	`added_at` text NOT NULL,
	PRIMARY KEY(`import_supplier`, `contract_identifier`)
);
--> statement-breakpoint
CREATE INDEX `business_contracts_business_idx` ON `business_contracts` (`import_supplier`,`external_business_identifier`);--> statement-breakpoint
CREATE TABLE `businesses` (
	`import_supplier` text NOT NULL,
	`external_business_identifier` text NOT NULL,
	`platform_business_id` integer NOT NULL,
	`business_type` text NOT NULL,
	`company_name` text NOT NULL,
	`siret` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`import_supplier`, `external_business_identifier`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `businesses_platform_business_id_unique` ON `businesses` (`platform_business_id`);--> statement-breakpoint
CREATE TABLE `products` (
	`code` text PRIMARY KEY NOT NULL,
	`market_name` text NOT NULL,
	`full_name` text NOT NULL,
	`display_name` text NOT NULL,
	`description` text,
	`notes` text,
	`brand` text,
	`available_from_date` text NOT NULL,
	`is_hidden` integer,
	`params` text NOT NULL,
	`rates` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `supply_point_populate_batches` (
	`batch_id` text PRIMARY KEY NOT NULL,
	`customer_category` text NOT NULL,
	`import_suppliers` text NOT NULL,
	`request_count` integer NOT NULL,
	`pending_count` integer NOT NULL,
	`imported_count` integer NOT NULL,
	`errored_count` integer NOT NULL,
	`started_at` text,
	`completed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `supply_point_populate_requests` (
	`batch_id` text NOT NULL,
	`sequence` integer NOT NULL,
	`queue_position` integer NOT NULL,
	`supply_type` text NOT NULL,
	`identifier` text NOT NULL,
	`status` text NOT NULL,
	`attempt` integer NOT NULL,
	`lease_expires_at` text,
	`due_at` text,
	`last_failure` text,
	`errored_reason` text,
	`requested_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`batch_id`, `sequence`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `supply_point_populate_requests_queue_position_unique` ON `supply_point_populate_requests` (`queue_position`);--> statement-breakpoint
CREATE INDEX `supply_point_populate_requests_queue_idx` ON `supply_point_populate_requests` (`supply_type`,`status`,`queue_position`);--> statement-breakpoint
CREATE TABLE `supply_points` (
	`supply_type` text NOT NULL,
	`identifier` text NOT NULL,
	`customer_category` text NOT NULL,
	`address_line1` text NOT NULL,
	`address_postcode` text NOT NULL,
	`address_city` text NOT NULL,
	`details` text NOT NULL,
	`last_batch_id` text NOT NULL,
	`import_count` integer NOT NULL,
	`first_imported_at` text NOT NULL,
	`last_imported_at` text NOT NULL,
	PRIMARY KEY(`supply_type`, `identifier`)
);
--> statement-breakpoint
ALTER TABLE `account_import_processes` ADD `business_contract_identifier` text;--> statement-breakpoint
ALTER TABLE `account_import_processes` ADD `platform_business_id` integer;