/**
 * The graph walk as one recursive CTE over the edges table, the form the contract gives:
 * from one seed (?1) with decay per hop (?2), following at most ?3 heaviest edges per node
 * (then oldest), to depth ?4, returning at most ?5 nodes with the edge each was reached by.
 * The server walks stored neighbour lists instead (src/retrieval/graph.ts walkGraph); a
 * test holds walkGraph to the same nodes, hops and scores, and the bench runs this as
 * graphView's raw-engine baseline.
 */
export const RECURSIVE_WALK_SQL = `
WITH RECURSIVE
  seeds(id, score) AS (VALUES (?, 1.0)),
  walk(id, hop, score, edge) AS (
    SELECT id, 0, score, NULL FROM seeds
    UNION ALL
    SELECT CASE WHEN ed.src = w.id THEN ed.dst ELSE ed.src END, w.hop + 1, w.score * ? * ed.weight, ed.rowid
    FROM walk w
    JOIN edges ed ON ed.rowid IN (
      SELECT x.r FROM (
        SELECT rowid AS r, weight FROM edges WHERE src = w.id
        UNION ALL
        SELECT rowid AS r, weight FROM edges WHERE dst = w.id
      ) x
      ORDER BY x.weight DESC, x.r
      LIMIT ?
    )
    WHERE w.hop < ?
  ),
  best AS (
    SELECT id, hop, score, edge,
      row_number() OVER (PARTITION BY id ORDER BY hop, score DESC, edge) AS pick
    FROM walk
  )
SELECT b.id AS id, b.hop AS hop, b.score AS score, ed.src AS src, ed.dst AS dst, ed.type AS type,
  ed.weight AS weight, ed.provenance AS provenance, ed.metadata AS metadata,
  ed.created_at AS created_at, ed.updated_at AS updated_at
FROM best b LEFT JOIN edges ed ON ed.rowid = b.edge
WHERE b.pick = 1
ORDER BY b.hop, b.score DESC, b.id
LIMIT ?`;
