ALTER TABLE `import_suppliers` ADD `last_verified_at` text;--> statement-breakpoint
ALTER TABLE `import_suppliers` ADD `last_verified_by` text;--> statement-breakpoint
ALTER TABLE `import_suppliers` ADD `last_verification` text;