-- Full-text index over entries.content, kept in step by triggers inside the writing transaction.
CREATE VIRTUAL TABLE `entries_fts` USING fts5(content, content='entries', content_rowid='n', tokenize='porter unicode61');
--> statement-breakpoint
CREATE TRIGGER `entries_fts_ai` AFTER INSERT ON `entries` BEGIN
  INSERT INTO entries_fts(rowid, content) VALUES (new.n, new.content);
END;
--> statement-breakpoint
CREATE TRIGGER `entries_fts_ad` AFTER DELETE ON `entries` BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, content) VALUES ('delete', old.n, old.content);
END;
--> statement-breakpoint
CREATE TRIGGER `entries_fts_au` AFTER UPDATE OF content ON `entries` BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, content) VALUES ('delete', old.n, old.content);
  INSERT INTO entries_fts(rowid, content) VALUES (new.n, new.content);
END;
