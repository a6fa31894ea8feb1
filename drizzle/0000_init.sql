CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	`actor` text,
	`action` text NOT NULL,
	`details` text DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE TABLE `edges` (
	`src` text NOT NULL,
	`dst` text NOT NULL,
	`type` text NOT NULL,
	`weight` real NOT NULL,
	`provenance` text NOT NULL,
	`metadata` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`src`) REFERENCES `entries`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`dst`) REFERENCES `entries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `edges_src_dst_type_unique` ON `edges` (`src`,`dst`,`type`);--> statement-breakpoint
CREATE INDEX `edges_src_weight_idx` ON `edges` (`src`,`weight`);--> statement-breakpoint
CREATE INDEX `edges_dst_weight_idx` ON `edges` (`dst`,`weight`);--> statement-breakpoint
CREATE INDEX `edges_type_idx` ON `edges` (`type`);--> statement-breakpoint
CREATE TABLE `entries` (
	`n` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`content` text NOT NULL,
	`content_hash` text NOT NULL,
	`source` text,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`volatility` text NOT NULL,
	`volatility_source` text NOT NULL,
	`importance` real NOT NULL,
	`claim_tag` text NOT NULL,
	`evidence_ref` text,
	`recall_count` integer DEFAULT 0 NOT NULL,
	`observed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `entries_id_unique` ON `entries` (`id`);--> statement-breakpoint
CREATE INDEX `entries_content_hash_idx` ON `entries` (`content_hash`);--> statement-breakpoint
CREATE INDEX `entries_kind_idx` ON `entries` (`kind`);--> statement-breakpoint
CREATE INDEX `entries_status_idx` ON `entries` (`status`);--> statement-breakpoint
CREATE INDEX `entries_volatility_idx` ON `entries` (`volatility`);--> statement-breakpoint
CREATE INDEX `entries_claim_tag_idx` ON `entries` (`claim_tag`);--> statement-breakpoint
CREATE INDEX `entries_created_idx` ON `entries` (`created_at`,`n`);--> statement-breakpoint
CREATE INDEX `entries_observed_idx` ON `entries` (`observed_at`);--> statement-breakpoint
CREATE TABLE `events` (
	`seq` integer PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`at` integer NOT NULL,
	`entry_id` text,
	`outcome` text,
	`edge` text,
	`data` text
);
--> statement-breakpoint
CREATE INDEX `events_entry_idx` ON `events` (`entry_id`);--> statement-breakpoint
CREATE INDEX `events_type_idx` ON `events` (`type`,`seq`);--> statement-breakpoint
CREATE TABLE `revisions` (
	`id` integer PRIMARY KEY NOT NULL,
	`entry_id` text NOT NULL,
	`content` text NOT NULL,
	`op` text NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`entry_id`) REFERENCES `entries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `revisions_entry_idx` ON `revisions` (`entry_id`,`id`);--> statement-breakpoint
CREATE TABLE `tags` (
	`entry_id` text NOT NULL,
	`tag` text NOT NULL,
	PRIMARY KEY(`entry_id`, `tag`),
	FOREIGN KEY (`entry_id`) REFERENCES `entries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tags_tag_idx` ON `tags` (`tag`,`entry_id`);