CREATE TABLE "account_historical_statements" (
	"import_supplier" text NOT NULL,
	"external_account_number" text NOT NULL,
	"statement_id" text NOT NULL,
	"bill_period_from_date" text NOT NULL,
	"bill_period_to_date" text NOT NULL,
	"issued_date" text,
	"number" text,
	"gross_amount_cents" bigint,
	"statement_path" text,
	"source" text NOT NULL,
	"imported_at" text NOT NULL,
	CONSTRAINT "account_historical_statements_pkey" PRIMARY KEY("import_supplier","external_account_number","statement_id")
);
--> statement-breakpoint
CREATE TABLE "account_import_processes" (
	"import_supplier" text NOT NULL,
	"external_account_number" text NOT NULL,
	"state" text NOT NULL,
	"platform_account_number" text,
	"operations_team_name" text,
	"business_contract_identifier" text,
	"platform_business_id" bigint,
	"transfer_status" text NOT NULL,
	"stage_count" bigint NOT NULL,
	"first_staged_at" text NOT NULL,
	"last_staged_at" text NOT NULL,
	"account_created_at" text,
	"updated_at" text NOT NULL,
	CONSTRAINT "account_import_processes_pkey" PRIMARY KEY("import_supplier","external_account_number")
);
--> statement-breakpoint
CREATE TABLE "account_ledger_transactions" (
	"import_supplier" text NOT NULL,
	"external_account_number" text NOT NULL,
	"transaction_id" text NOT NULL,
	"position" bigint NOT NULL,
	"type" text NOT NULL,
	"transaction_date" text NOT NULL,
	"original_transaction_date" text,
	"amount_cents" bigint NOT NULL,
	"balance_effect_cents" bigint NOT NULL,
	"transaction" text NOT NULL,
	"added_at" text NOT NULL,
	CONSTRAINT "account_ledger_transactions_pkey" PRIMARY KEY("import_supplier","external_account_number","transaction_id")
);
--> statement-breakpoint
CREATE TABLE "account_ledgers" (
	"import_supplier" text NOT NULL,
	"external_account_number" text NOT NULL,
	"balance_cents" bigint NOT NULL,
	"transaction_count" bigint NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "account_ledgers_pkey" PRIMARY KEY("import_supplier","external_account_number")
);
--> statement-breakpoint
CREATE TABLE "account_notes" (
	"import_supplier" text NOT NULL,
	"external_account_number" text NOT NULL,
	"sequence" bigint NOT NULL,
	"body" text,
	"created_at" text NOT NULL,
	"created_at_given" boolean NOT NULL,
	"is_pinned" boolean NOT NULL,
	"unpin_at" text,
	"document_paths" text NOT NULL,
	"source" text NOT NULL,
	"recorded_at" text NOT NULL,
	CONSTRAINT "account_notes_pkey" PRIMARY KEY("import_supplier","external_account_number","sequence")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"key_id" text PRIMARY KEY NOT NULL,
	"key_hash" text NOT NULL,
	"suppliers" text NOT NULL,
	"label" text,
	"created_at" text NOT NULL,
	"revoked_at" text
);
--> statement-breakpoint
CREATE TABLE "business_contracts" (
	"import_supplier" text NOT NULL,
	"contract_identifier" text NOT NULL,
	"external_business_identifier" text NOT NULL,
	"valid_from_date" text,
	"added_at" text NOT NULL,
	CONSTRAINT "business_contracts_pkey" PRIMARY KEY("import_supplier","contract_identifier")
);
--> statement-breakpoint
CREATE TABLE "businesses" (
	"import_supplier" text NOT NULL,
	"external_business_identifier" text NOT NULL,
	"platform_business_id" bigint NOT NULL,
	"business_type" text NOT NULL,
	"company_name" text NOT NULL,
	"siret" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "businesses_pkey" PRIMARY KEY("import_supplier","external_business_identifier")
);
--> statement-breakpoint
CREATE TABLE "customer_emails" (
	"email_id" text PRIMARY KEY NOT NULL,
	"import_supplier" text NOT NULL,
	"external_account_number" text NOT NULL,
	"platform_account_number" text NOT NULL,
	"customer_index" bigint NOT NULL,
	"recipient" text NOT NULL,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"queue_position" bigint NOT NULL,
	"status" text NOT NULL,
	"attempt" bigint NOT NULL,
	"due_at" text,
	"lease_expires_at" text,
	"last_error" text,
	"failure_outcome" text,
	"message_id" text,
	"queued_at" text NOT NULL,
	"sent_at" text,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"global_position" bigint PRIMARY KEY NOT NULL,
	"stream_id" text NOT NULL,
	"stream_position" bigint NOT NULL,
	"type" text NOT NULL,
	"schema_version" bigint NOT NULL,
	"data" text NOT NULL,
	"metadata" text NOT NULL,
	"event_id" text NOT NULL,
	"recorded_at" text NOT NULL,
	"bulk" text
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"key_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"request_path" text NOT NULL,
	"event_positions" text NOT NULL,
	"status" bigint,
	"response_body" text,
	"response_content_type" text,
	"created_at" text NOT NULL,
	"completed_at" text,
	CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY("key_id","idempotency_key")
);
--> statement-breakpoint
CREATE TABLE "import_suppliers" (
	"code" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"send_emails" boolean NOT NULL,
	"document_root" text,
	"stream_version" bigint NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "operations_teams" (
	"name" text PRIMARY KEY NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_instructions" (
	"import_supplier" text NOT NULL,
	"external_account_number" text NOT NULL,
	"reference" text NOT NULL,
	"platform_account_number" text NOT NULL,
	"vendor" text NOT NULL,
	"type" text NOT NULL,
	"vendor_status" text NOT NULL,
	"vendor_details" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "payment_instructions_pkey" PRIMARY KEY("import_supplier","external_account_number","reference")
);
--> statement-breakpoint
CREATE TABLE "products" (
	"code" text PRIMARY KEY NOT NULL,
	"market_name" text NOT NULL,
	"full_name" text NOT NULL,
	"display_name" text NOT NULL,
	"description" text,
	"notes" text,
	"brand" text,
	"available_from_date" text NOT NULL,
	"is_hidden" boolean,
	"params" text NOT NULL,
	"rates" text NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projection_versions" (
	"name" text PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL,
	"rebuilt_through" bigint NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "service_config" (
	"key" text PRIMARY KEY NOT NULL,
	"value" bigint,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "service_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "supply_point_populate_batches" (
	"batch_id" text PRIMARY KEY NOT NULL,
	"customer_category" text NOT NULL,
	"import_suppliers" text NOT NULL,
	"request_count" bigint NOT NULL,
	"pending_count" bigint NOT NULL,
	"imported_count" bigint NOT NULL,
	"errored_count" bigint NOT NULL,
	"started_at" text,
	"completed_at" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "supply_point_populate_requests" (
	"batch_id" text NOT NULL,
	"sequence" bigint NOT NULL,
	"queue_position" bigint NOT NULL,
	"supply_type" text NOT NULL,
	"identifier" text NOT NULL,
	"status" text NOT NULL,
	"attempt" bigint NOT NULL,
	"lease_expires_at" text,
	"due_at" text,
	"last_failure" text,
	"errored_reason" text,
	"requested_at" text NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "supply_point_populate_requests_pkey" PRIMARY KEY("batch_id","sequence")
);
--> statement-breakpoint
CREATE TABLE "supply_points" (
	"supply_type" text NOT NULL,
	"identifier" text NOT NULL,
	"customer_category" text NOT NULL,
	"address_line1" text NOT NULL,
	"address_postcode" text NOT NULL,
	"address_city" text NOT NULL,
	"details" text NOT NULL,
	"last_batch_id" text NOT NULL,
	"import_count" bigint NOT NULL,
	"first_imported_at" text NOT NULL,
	"last_imported_at" text NOT NULL,
	CONSTRAINT "supply_points_pkey" PRIMARY KEY("supply_type","identifier")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "account_import_processes_platform_account_number_unique" ON "account_import_processes" USING btree ("platform_account_number");--> statement-breakpoint
CREATE INDEX "account_import_processes_list_idx" ON "account_import_processes" USING btree ("import_supplier","state","first_staged_at");--> statement-breakpoint
CREATE INDEX "account_ledger_transactions_date_idx" ON "account_ledger_transactions" USING btree ("import_supplier","external_account_number","transaction_date","position");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_unique" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "business_contracts_business_idx" ON "business_contracts" USING btree ("import_supplier","external_business_identifier");--> statement-breakpoint
CREATE UNIQUE INDEX "businesses_platform_business_id_unique" ON "businesses" USING btree ("platform_business_id");--> statement-breakpoint
CREATE UNIQUE INDEX "customer_emails_queue_position_unique" ON "customer_emails" USING btree ("queue_position");--> statement-breakpoint
CREATE INDEX "customer_emails_queue_idx" ON "customer_emails" USING btree ("status","queue_position");--> statement-breakpoint
CREATE INDEX "customer_emails_account_idx" ON "customer_emails" USING btree ("import_supplier","external_account_number");--> statement-breakpoint
CREATE UNIQUE INDEX "events_stream_id_stream_position_unique" ON "events" USING btree ("stream_id","stream_position");--> statement-breakpoint
CREATE UNIQUE INDEX "events_event_id_unique" ON "events" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "events_type_idx" ON "events" USING btree ("type");--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "supply_point_populate_requests_queue_position_unique" ON "supply_point_populate_requests" USING btree ("queue_position");--> statement-breakpoint
CREATE INDEX "supply_point_populate_requests_queue_idx" ON "supply_point_populate_requests" USING btree ("supply_type","status","queue_position");