-- An impact-ordered side index over the full-text index, for frequent terms only: for each
-- such term, the postings whose BM25 term weight (tf and document length against the
-- reference average length, quantized ×10000; idf only scales a term's list, so it is left
-- out) is at least the term's threshold, i.e. the head of the term's list in impact order.
-- Beside them, each entry's frequent terms with their counts (impact_docs: "term id:tf ..."),
-- so that a candidate's weight for every frequent term is one row away. Recall reads the
-- heads instead of ranking every row of a common word, and stops when nothing outside them
-- can reach its top. Derived from entries_fts: reindex rebuilds it
-- (choosing the terms and thresholds), check compares a sample with FTS5, export/import
-- never carry it. Kept in step by triggers inside the writing transaction, which tokenize
-- the content with the same tokenizer as entries_fts through a one-document FTS5 table.
CREATE TABLE `impact_meta` (
  `id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
  `avgdl` real NOT NULL
);
--> statement-breakpoint
CREATE TABLE `impact_terms` (
  `id` integer PRIMARY KEY NOT NULL,
  `term` text NOT NULL UNIQUE,
  `threshold` integer NOT NULL,
  `docs` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `impact_postings` (
  `term` text NOT NULL,
  `impact` integer NOT NULL,
  `n` integer NOT NULL,
  `tf` integer NOT NULL,
  `dl` integer NOT NULL,
  PRIMARY KEY (`term`, `impact`, `n`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `impact_docs` (
  `n` integer PRIMARY KEY NOT NULL,
  `dl` integer NOT NULL,
  `terms` text NOT NULL
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `impact_scratch` USING fts5(content, content='', tokenize='porter unicode61');
--> statement-breakpoint
CREATE VIRTUAL TABLE `impact_scratch_terms` USING fts5vocab(impact_scratch, row);
--> statement-breakpoint
CREATE VIRTUAL TABLE `impact_fts_terms` USING fts5vocab(entries_fts, row);
--> statement-breakpoint
CREATE VIRTUAL TABLE `impact_fts_instances` USING fts5vocab(entries_fts, instance);
--> statement-breakpoint
-- The frequent terms of one content, weighed (a posting goes into a head when its weight
-- reaches the term's threshold).
CREATE VIEW `impact_scratch_postings` AS
SELECT s.term AS term, t.id AS id,
  CAST((s.cnt * 2.2) / (s.cnt + 1.2 * (0.25 + 0.75 * d.dl / m.avgdl)) * 10000 AS INTEGER) AS impact,
  s.cnt AS tf, d.dl AS dl, t.threshold AS threshold
FROM impact_scratch_terms s
JOIN impact_terms t ON t.term = s.term
CROSS JOIN (SELECT sum(cnt) AS dl FROM impact_scratch_terms) d
CROSS JOIN impact_meta m;
--> statement-breakpoint
CREATE TRIGGER `impact_entries_ai` AFTER INSERT ON `entries` WHEN EXISTS (SELECT 1 FROM impact_terms) BEGIN
  INSERT INTO impact_scratch(rowid, content) VALUES (1, new.content);
  UPDATE impact_terms SET docs = docs + 1 WHERE term IN (SELECT term FROM impact_scratch_terms);
  INSERT INTO impact_postings (term, impact, n, tf, dl)
    SELECT term, impact, new.n, tf, dl FROM impact_scratch_postings WHERE impact >= threshold;
  INSERT INTO impact_docs (n, dl, terms)
    SELECT new.n, max(dl), group_concat(id || ':' || tf, ' ') FROM impact_scratch_postings HAVING count(*) > 0;
  INSERT INTO impact_scratch(impact_scratch) VALUES ('delete-all');
END;
--> statement-breakpoint
CREATE TRIGGER `impact_entries_ad` AFTER DELETE ON `entries` WHEN EXISTS (SELECT 1 FROM impact_terms) BEGIN
  INSERT INTO impact_scratch(rowid, content) VALUES (1, old.content);
  UPDATE impact_terms SET docs = docs - 1 WHERE term IN (SELECT term FROM impact_scratch_terms);
  DELETE FROM impact_postings WHERE (term, impact, n) IN (
    SELECT term, impact, old.n FROM impact_scratch_postings WHERE impact >= threshold);
  DELETE FROM impact_docs WHERE n = old.n;
  INSERT INTO impact_scratch(impact_scratch) VALUES ('delete-all');
END;
--> statement-breakpoint
CREATE TRIGGER `impact_entries_au` AFTER UPDATE OF content ON `entries` WHEN EXISTS (SELECT 1 FROM impact_terms) BEGIN
  INSERT INTO impact_scratch(rowid, content) VALUES (1, old.content);
  UPDATE impact_terms SET docs = docs - 1 WHERE term IN (SELECT term FROM impact_scratch_terms);
  DELETE FROM impact_postings WHERE (term, impact, n) IN (
    SELECT term, impact, old.n FROM impact_scratch_postings WHERE impact >= threshold);
  DELETE FROM impact_docs WHERE n = old.n;
  INSERT INTO impact_scratch(impact_scratch) VALUES ('delete-all');
  INSERT INTO impact_scratch(rowid, content) VALUES (1, new.content);
  UPDATE impact_terms SET docs = docs + 1 WHERE term IN (SELECT term FROM impact_scratch_terms);
  INSERT INTO impact_postings (term, impact, n, tf, dl)
    SELECT term, impact, new.n, tf, dl FROM impact_scratch_postings WHERE impact >= threshold;
  INSERT INTO impact_docs (n, dl, terms)
    SELECT new.n, max(dl), group_concat(id || ':' || tf, ' ') FROM impact_scratch_postings HAVING count(*) > 0;
  INSERT INTO impact_scratch(impact_scratch) VALUES ('delete-all');
END;
