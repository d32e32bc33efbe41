CREATE TABLE `business_payment_instructions` (
	`import_supplier` text NOT NULL,
	`external_business_identifier` text NOT NULL,
	`reference` text NOT NULL,
	`vendor` text NOT NULL,
	`type` text NOT NULL,
	`valid_from` text,
	`accounts` text NOT NULL,
	`vendor_status` text NOT NULL,
	`vendor_details` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`import_supplier`, `external_business_identifier`, `reference`)
);
