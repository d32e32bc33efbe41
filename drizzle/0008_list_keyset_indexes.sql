DROP INDEX `account_import_processes_list_idx`;--> statement-breakpoint
CREATE INDEX `account_import_processes_order_idx` ON `account_import_processes` (`import_supplier`,`first_staged_at`,`external_account_number`);--> statement-breakpoint
CREATE INDEX `account_import_processes_list_idx` ON `account_import_processes` (`import_supplier`,`state`,`first_staged_at`,`external_account_number`);