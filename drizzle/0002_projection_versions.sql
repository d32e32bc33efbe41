CREATE TABLE `projection_versions` (
	`name` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	`rebuilt_through` integer NOT NULL,
	`updated_at` text NOT NULL
);
