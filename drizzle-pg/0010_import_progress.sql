CREATE TABLE "account_import_progress" (
	"import_supplier" text NOT NULL,
	"external_account_number" text NOT NULL,
	"state" text NOT NULL,
	"transfer_status" text,
	"failure_step" text,
	"failure_operation" text,
	"failure_code" text,
	"failure_errors" text,
	"failure_codes" text,
	"failed_at" text,
	"failed_position" bigint,
	CONSTRAINT "account_import_progress_pkey" PRIMARY KEY("import_supplier","external_account_number")
);
--> statement-breakpoint
CREATE TABLE "import_activity" (
	"import_supplier" text PRIMARY KEY NOT NULL,
	"first_staged_at" text,
	"last_activity_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "import_failure_summary" (
	"import_supplier" text NOT NULL,
	"code" text NOT NULL,
	"attr" text NOT NULL,
	"accounts" bigint NOT NULL,
	CONSTRAINT "import_failure_summary_pkey" PRIMARY KEY("import_supplier","code","attr")
);
--> statement-breakpoint
CREATE TABLE "import_progress_counts" (
	"import_supplier" text PRIMARY KEY NOT NULL,
	"total" bigint NOT NULL,
	"pending" bigint NOT NULL,
	"imported" bigint NOT NULL,
	"skipped" bigint NOT NULL,
	"failing" bigint NOT NULL,
	"transfer_pending" bigint NOT NULL,
	"transfer_in_progress" bigint NOT NULL,
	"transfer_rejected" bigint NOT NULL,
	"transfer_completed" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "import_throughput" (
	"import_supplier" text NOT NULL,
	"minute" text NOT NULL,
	"imports" bigint NOT NULL,
	CONSTRAINT "import_throughput_pkey" PRIMARY KEY("import_supplier","minute")
);
--> statement-breakpoint
CREATE INDEX "account_import_progress_failures_idx" ON "account_import_progress" USING btree ("import_supplier","failed_position");--> statement-breakpoint
CREATE INDEX "import_failure_summary_accounts_idx" ON "import_failure_summary" USING btree ("import_supplier","accounts","code","attr");