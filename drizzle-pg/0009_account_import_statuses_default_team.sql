CREATE TABLE "account_import_statuses" (
	"import_supplier" text NOT NULL,
	"external_account_number" text NOT NULL,
	"status" text NOT NULL,
	"platform_identifier" text,
	"created_at" text NOT NULL,
	"modified_at" text NOT NULL,
	"latest_event" text NOT NULL,
	"latest_event_at" text NOT NULL,
	"latest_event_data" text,
	"latest_error_code" text,
	"latest_error_detail" text,
	"latest_error_domain" text,
	"task_id" text,
	"is_dry_run" boolean,
	"operations_team_name" text,
	"window_end" text,
	"claim_id" text,
	"due_at" text,
	CONSTRAINT "account_import_statuses_pkey" PRIMARY KEY("import_supplier","external_account_number")
);
--> statement-breakpoint
ALTER TABLE "import_suppliers" ADD COLUMN "default_operations_team_name" text;--> statement-breakpoint
CREATE INDEX "account_import_statuses_due_idx" ON "account_import_statuses" USING btree ("due_at");