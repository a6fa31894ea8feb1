/**
 * The counts triggers keep in step with every write (drizzle/0010_counts.sql): row_counts,
 * rows per value of each column stats reports (`dim`: kind, status, volatility, claim_tag,
 * edge_type, and `revisions` with the key ''), and tag_counts, entries per tag. Here, the
 * same counts made afresh, for `check` to compare and `reindex` to rebuild them from.
 */

/** Every non-zero count of row_counts, made afresh: (dim, key, n). */
export const FRESH_ROW_COUNTS = `
  SELECT 'kind' AS dim, kind AS key, count(*) AS n FROM entries GROUP BY kind
  UNION ALL SELECT 'status', status, count(*) FROM entries GROUP BY status
  UNION ALL SELECT 'volatility', volatility, count(*) FROM entries GROUP BY volatility
  UNION ALL SELECT 'claim_tag', claim_tag, count(*) FROM entries GROUP BY claim_tag
  UNION ALL SELECT 'edge_type', type, count(*) FROM edges GROUP BY type
  UNION ALL SELECT 'revisions', '', n FROM (SELECT count(*) AS n FROM revisions) WHERE n > 0`;

/** Every row of tag_counts, made afresh: (tag, n). */
export const FRESH_TAG_COUNTS = 'SELECT tag, count(*) AS n FROM tags GROUP BY tag';

/**
 * How many counts of either table differ from the counts made afresh (missing, extra or
 * wrong). The fresh counts are made once each: compared both ways, they would otherwise be
 * grouped twice over every entry, edge and tag row.
 */
export const STALE_COUNTS = `WITH
  fresh AS MATERIALIZED (${FRESH_ROW_COUNTS}),
  fresh_tags AS MATERIALIZED (${FRESH_TAG_COUNTS})
SELECT count(*) FROM (
  SELECT * FROM (SELECT dim, key, n FROM row_counts WHERE n <> 0 EXCEPT SELECT * FROM fresh)
  UNION ALL SELECT * FROM (SELECT * FROM fresh EXCEPT SELECT dim, key, n FROM row_counts WHERE n <> 0)
  UNION ALL SELECT 't', * FROM (SELECT tag, n FROM tag_counts EXCEPT SELECT * FROM fresh_tags)
  UNION ALL SELECT 't', * FROM (SELECT * FROM fresh_tags EXCEPT SELECT tag, n FROM tag_counts))`;

/** The statements that rebuild both tables, in one transaction of the caller's. */
export const REBUILD_COUNTS = [
  'DELETE FROM row_counts',
  `INSERT INTO row_counts (dim, key, n) ${FRESH_ROW_COUNTS}`,
  // The revisions' count is updated, never inserted, by its triggers: its row always exists.
  "INSERT OR IGNORE INTO row_counts (dim, key, n) VALUES ('revisions', '', 0)",
  'DELETE FROM tag_counts',
  `INSERT INTO tag_counts (tag, n) ${FRESH_TAG_COUNTS}`,
] as const;
