CREATE TABLE `entry_classifications` (
	`entry_id` text PRIMARY KEY NOT NULL,
	`sources` text NOT NULL,
	`model` text,
	`at` integer NOT NULL,
	FOREIGN KEY (`entry_id`) REFERENCES `entries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `entry_conflicts` (
	`id` integer PRIMARY KEY NOT NULL,
	`newer_id` text NOT NULL,
	`older_id` text NOT NULL,
	`relation` text NOT NULL,
	`reason` text NOT NULL,
	`confidence` real,
	`model` text NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`newer_id`) REFERENCES `entries`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`older_id`) REFERENCES `entries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `entry_conflicts_pair_unique` ON `entry_conflicts` (`newer_id`,`older_id`);--> statement-breakpoint
CREATE INDEX `entry_conflicts_older_idx` ON `entry_conflicts` (`older_id`);--> statement-breakpoint
CREATE TABLE `llm_queue` (
	`entry_id` text PRIMARY KEY NOT NULL,
	`ask` text DEFAULT '[]' NOT NULL,
	`conflicts` integer DEFAULT 0 NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`enqueued_at` integer NOT NULL,
	FOREIGN KEY (`entry_id`) REFERENCES `entries`(`id`) ON UPDATE no action ON DELETE cascade
);
