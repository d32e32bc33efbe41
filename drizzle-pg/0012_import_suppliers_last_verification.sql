ALTER TABLE "import_suppliers" ADD COLUMN "last_verified_at" text;--> statement-breakpoint
ALTER TABLE "import_suppliers" ADD COLUMN "last_verified_by" text;--> statement-breakpoint
ALTER TABLE "import_suppliers" ADD COLUMN "last_verification" text;