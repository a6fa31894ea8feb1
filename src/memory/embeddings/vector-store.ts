import type { InValue } from '@libsql/client';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { vectorBytes } from './embedder.ts';

/** The model a workspace's vectors must match to count: its name and dimension. */
export interface VectorModel {
  model: string;
  dim: number;
}

export interface VectorRow {
  entryId: string;
  contentHash: string;
  docs: number;
  vector: Float32Array;
}

/**
 * Stores an entry's vector for the model, replacing whatever it had: REPLACE deletes the
 * old row and inserts a new one, so its seq grows and cached matrices load it again. Only
 * while the entry still holds `contentHash`: a vector made from older content is dropped.
 */
export async function writeVector(db: Db, model: VectorModel, row: VectorRow): Promise<boolean> {
  const result = await db.run(sql`
    INSERT OR REPLACE INTO entry_vectors (entry_id, model, dim, content_hash, docs, vector)
    SELECT e.id, ${model.model}, ${model.dim}, e.content_hash, ${row.docs}, ${vectorBytes(row.vector)}
    FROM entries e WHERE e.id = ${row.entryId} AND e.content_hash = ${row.contentHash}`);
  return result.rowsAffected > 0;
}

/** writeVector's statement, for a planned write (the same SQL, bound in the same order). */
export function writeVectorStatement(model: VectorModel, row: VectorRow): { sql: string; args: InValue[] } {
  return {
    sql: `INSERT OR REPLACE INTO entry_vectors (entry_id, model, dim, content_hash, docs, vector)
      SELECT e.id, ?, ?, e.content_hash, ?, ? FROM entries e WHERE e.id = ? AND e.content_hash = ?`,
    args: [model.model, model.dim, row.docs, vectorBytes(row.vector), row.entryId, row.contentHash],
  };
}

/** Removes an entry's vector (its content changed: the vector no longer says what it holds). */
export async function dropVector(db: Db, entryId: string): Promise<void> {
  await db.run(sql`DELETE FROM entry_vectors WHERE entry_id = ${entryId}`);
}

/**
 * Entries after rowid `afterN` lacking a current vector for the model (none, another
 * model's, or one made from other content), in rowid order.
 */
export async function entriesLackingVectors(
  db: Db,
  model: VectorModel,
  afterN: number,
  limit: number,
): Promise<{ n: number; id: string; content: string; contentHash: string }[]> {
  return db.all(sql`
    SELECT e.n AS n, e.id AS id, e.content AS content, e.content_hash AS contentHash
    FROM entries e LEFT JOIN entry_vectors v ON v.entry_id = e.id
    WHERE e.n > ${afterN}
      AND (v.seq IS NULL OR v.model <> ${model.model} OR v.dim <> ${model.dim} OR v.content_hash <> e.content_hash)
    ORDER BY e.n LIMIT ${limit}`);
}

/** The highest rowid of the entries (0 when there are none): one step down the table's b-tree. */
export async function lastEntryN(db: Db): Promise<number> {
  const [row] = await db.all<{ n: number | null }>(sql`SELECT max(n) AS n FROM entries`);
  return Number(row?.n ?? 0);
}

/**
 * Entries whose vector was weighed when the workspace had fewer than `docsBelow`
 * documents: IDF from a small workspace is a poor guess, so these are made again as the
 * workspace grows (each entry again only each time the workspace doubles).
 */
export async function entriesWithOldWeights(
  db: Db,
  model: VectorModel,
  docsBelow: number,
  limit: number,
): Promise<{ n: number; id: string; content: string; contentHash: string }[]> {
  return db.all(sql`
    SELECT e.n AS n, e.id AS id, e.content AS content, e.content_hash AS contentHash
    FROM entry_vectors v JOIN entries e ON e.id = v.entry_id
    WHERE v.model = ${model.model} AND v.docs < ${docsBelow}
    ORDER BY v.docs LIMIT ${limit}`);
}

/** A model as `check` knows it from the configuration: the dimension may be unknown (null) until the endpoint is asked. */
export interface ConfiguredModel {
  model: string;
  dim: number | null;
}

/**
 * How many entries hold a current vector for the model, and how many lack one (none,
 * another model's, or one made from other content): what `check` and `stats` report.
 */
export async function vectorCounts(db: Db, model: ConfiguredModel): Promise<{ current: number; lacking: number }> {
  const [row] = await db.all<{ entries: number; current: number }>(sql`
    SELECT (SELECT count(*) FROM entries) AS entries,
      (SELECT count(*) FROM entry_vectors v JOIN entries e ON e.id = v.entry_id
        WHERE v.model = ${model.model} AND (${model.dim} IS NULL OR v.dim = ${model.dim})
          AND v.content_hash = e.content_hash) AS current`);
  const current = Number(row?.current ?? 0);
  return { current, lacking: Number(row?.entries ?? 0) - current };
}

/** Drops every stored vector, so the queue (or `reindex --vectors`) makes them all again. */
export async function dropAllVectors(db: Db): Promise<number> {
  const result = await db.run(sql`DELETE FROM entry_vectors`);
  return result.rowsAffected;
}
