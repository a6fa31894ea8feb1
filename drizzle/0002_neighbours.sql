-- Each entry's heaviest edges, both directions, as graph walks follow them (weight desc,
-- then oldest first; at most 8, the walk's fanout): JSON [[other id, type, 1 if the entry
-- is the source, weight as 17 significant digits], ...]. Derived from edges and kept in
-- step by triggers inside the writing transaction, so a walk reads one short row per node
-- instead of ranking every edge of it. Entries without edges have no row.
CREATE VIEW `entry_neighbour_lists` AS
SELECT e.id AS entry_id, (
  SELECT json_group_array(json_array(x.other, x.type, x.out, printf('%!.17g', x.weight)))
  FROM (
    SELECT dst AS other, type, 1 AS out, weight, rowid AS r FROM edges WHERE src = e.id
    UNION ALL
    SELECT src AS other, type, 0 AS out, weight, rowid AS r FROM edges WHERE dst = e.id
    ORDER BY weight DESC, r
    LIMIT 8
  ) x
) AS top
FROM entries e;
--> statement-breakpoint
CREATE TABLE `entry_neighbours` (
  `entry_id` text PRIMARY KEY NOT NULL,
  `top` text NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO entry_neighbours (entry_id, top)
SELECT entry_id, top FROM entry_neighbour_lists
WHERE entry_id IN (SELECT src FROM edges UNION SELECT dst FROM edges);
--> statement-breakpoint
CREATE TRIGGER `edges_neighbours_ai` AFTER INSERT ON `edges` BEGIN
  INSERT OR REPLACE INTO entry_neighbours (entry_id, top)
    SELECT entry_id, top FROM entry_neighbour_lists WHERE entry_id IN (new.src, new.dst);
END;
--> statement-breakpoint
CREATE TRIGGER `edges_neighbours_ad` AFTER DELETE ON `edges` BEGIN
  INSERT OR REPLACE INTO entry_neighbours (entry_id, top)
    SELECT entry_id, top FROM entry_neighbour_lists WHERE entry_id IN (old.src, old.dst);
  DELETE FROM entry_neighbours WHERE entry_id IN (old.src, old.dst) AND top = '[]';
END;
--> statement-breakpoint
CREATE TRIGGER `edges_neighbours_au` AFTER UPDATE OF src, dst, type, weight ON `edges` BEGIN
  INSERT OR REPLACE INTO entry_neighbours (entry_id, top)
    SELECT entry_id, top FROM entry_neighbour_lists WHERE entry_id IN (old.src, old.dst, new.src, new.dst);
  DELETE FROM entry_neighbours WHERE entry_id IN (old.src, old.dst) AND top = '[]';
END;
--> statement-breakpoint
CREATE TRIGGER `entries_neighbours_ad` AFTER DELETE ON `entries` BEGIN
  DELETE FROM entry_neighbours WHERE entry_id = old.id;
END;
