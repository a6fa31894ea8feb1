CREATE TABLE `entry_vector_drops` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`vector_seq` integer NOT NULL,
	`entry_id` text NOT NULL
);
--> statement-breakpoint
-- Every removal of a vector, whoever makes it (forget's cascade, the trigger on changed
-- content, reindex, another process), so cached matrices learn of it from two indexed
-- reads instead of counting the table before each capture. REPLACE fires no delete
-- trigger, and needs none: the new row's higher seq replaces the entry's vector anyway.
-- Only the newest 10,000 are kept: a matrix further behind than that reloads in full.
CREATE TRIGGER `entry_vectors_ad` AFTER DELETE ON `entry_vectors` BEGIN
  INSERT INTO entry_vector_drops (vector_seq, entry_id) VALUES (old.seq, old.entry_id);
  DELETE FROM entry_vector_drops WHERE seq <= last_insert_rowid() - 10000;
END;
