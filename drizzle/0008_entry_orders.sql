CREATE INDEX `entries_updated_idx` ON `entries` (`updated_at`,`n`);--> statement-breakpoint
CREATE INDEX `entries_observed_order_idx` ON `entries` (coalesce(`observed_at`, `created_at`),`n`);
