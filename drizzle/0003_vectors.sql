CREATE TABLE `entry_vectors` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`entry_id` text NOT NULL,
	`model` text NOT NULL,
	`dim` integer NOT NULL,
	`content_hash` text NOT NULL,
	`docs` integer DEFAULT 0 NOT NULL,
	`vector` blob NOT NULL,
	FOREIGN KEY (`entry_id`) REFERENCES `entries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `entry_vectors_entry_unique` ON `entry_vectors` (`entry_id`);--> statement-breakpoint
CREATE INDEX `entry_vectors_model_idx` ON `entry_vectors` (`model`,`seq`);--> statement-breakpoint
-- Each stemmed term's document count, read by the glove embedder to weigh words by IDF.
CREATE VIRTUAL TABLE `entries_fts_vocab` USING fts5vocab(`entries_fts`, 'row');
--> statement-breakpoint
-- A vector says what the content said when it was made: changed content drops it (the
-- embedding queue makes a new one), so recall never ranks an entry by its old words.
CREATE TRIGGER `entries_vectors_au` AFTER UPDATE OF content ON `entries` BEGIN
  DELETE FROM entry_vectors WHERE entry_id = new.id;
END;
