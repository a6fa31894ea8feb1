import { sql } from 'drizzle-orm';
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import {
  CAPTURE_OUTCOMES,
  CLAIM_TAGS,
  CONFLICT_RELATIONS,
  EDGE_TYPES,
  ENTRY_KINDS,
  ENTRY_STATUSES,
  EVENT_TYPES,
  PROVENANCES,
  REVISION_OPS,
  VOLATILITIES,
  VOLATILITY_SOURCES,
} from '../contract/enums.ts';

/**
 * The tables of one workspace database. Every timestamp is milliseconds since the
 * Unix epoch (UTC). Enum columns hold the contract's enum names as plain TEXT: the `enum`
 * option only types them (SQLite has no CHECK from it), so no migration follows from it.
 */

export const entries = sqliteTable(
  'entries',
  {
    // An explicit INTEGER PRIMARY KEY keeps the rowid stable across VACUUM, which the
    // external-content FTS index (content_rowid = n) relies on.
    n: integer('n').primaryKey(),
    id: text('id').notNull(),
    content: text('content').notNull(),
    contentHash: text('content_hash').notNull(),
    source: text('source'),
    kind: text('kind', { enum: ENTRY_KINDS }).notNull(),
    status: text('status', { enum: ENTRY_STATUSES }).notNull(),
    volatility: text('volatility', { enum: VOLATILITIES }).notNull(),
    volatilitySource: text('volatility_source', { enum: VOLATILITY_SOURCES }).notNull(),
    importance: real('importance').notNull(),
    claimTag: text('claim_tag', { enum: CLAIM_TAGS }).notNull(),
    evidenceRef: text('evidence_ref'),
    recallCount: integer('recall_count').notNull().default(0),
    observedAt: integer('observed_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('entries_id_unique').on(t.id),
    index('entries_content_hash_idx').on(t.contentHash),
    index('entries_kind_idx').on(t.kind),
    index('entries_status_idx').on(t.status),
    index('entries_volatility_idx').on(t.volatility),
    index('entries_claim_tag_idx').on(t.claimTag),
    index('entries_created_idx').on(t.createdAt, t.n),
    index('entries_observed_idx').on(t.observedAt),
    // The orders of `entries` pages other than CREATED_AT (see retrieval/entry-page.ts): the
    // expression is the OBSERVED_AT order's sort key, which a query must spell the same way.
    index('entries_updated_idx').on(t.updatedAt, t.n),
    index('entries_observed_order_idx').on(sql`coalesce(observed_at, created_at)`, t.n),
    // A brief's important and stale lists (see memory/queries.ts, whose statements repeat
    // these conditions word for word).
    index('entries_important_idx').on(t.importance, t.updatedAt, t.n).where(sql`status IN ('ACTIVE', 'CANONICAL')`),
    index('entries_stale_idx').on(t.updatedAt, t.n).where(sql`status = 'STALE'`),
    index('entries_aging_idx')
      .on(t.volatility, t.updatedAt, t.n)
      .where(sql`status = 'ACTIVE' AND volatility IN ('EVOLVING', 'EPHEMERAL')`),
  ],
);

export const tags = sqliteTable(
  'tags',
  {
    entryId: text('entry_id')
      .notNull()
      .references(() => entries.id, { onDelete: 'cascade' }),
    tag: text('tag').notNull(),
  },
  (t) => [primaryKey({ columns: [t.entryId, t.tag] }), index('tags_tag_idx').on(t.tag, t.entryId)],
);

export const edges = sqliteTable(
  'edges',
  {
    src: text('src')
      .notNull()
      .references(() => entries.id, { onDelete: 'cascade' }),
    dst: text('dst')
      .notNull()
      .references(() => entries.id, { onDelete: 'cascade' }),
    type: text('type', { enum: EDGE_TYPES }).notNull(),
    weight: real('weight').notNull(),
    provenance: text('provenance', { enum: PROVENANCES }).notNull(),
    metadata: text('metadata'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('edges_src_dst_type_unique').on(t.src, t.dst, t.type),
    index('edges_src_weight_idx').on(t.src, t.weight),
    index('edges_dst_weight_idx').on(t.dst, t.weight),
    index('edges_type_idx').on(t.type),
    // Which entry supersedes this one: recall asks for each of its ~150 candidates, and
    // through the dst index that read every incoming edge's row to find the rare
    // SUPERSEDES one. Only SUPERSEDES edges are in this index, so it stays small.
    index('edges_supersedes_idx').on(t.dst, t.createdAt).where(sql`type = 'SUPERSEDES'`),
  ],
);

export const revisions = sqliteTable(
  'revisions',
  {
    id: integer('id').primaryKey(),
    entryId: text('entry_id')
      .notNull()
      .references(() => entries.id, { onDelete: 'cascade' }),
    content: text('content').notNull(),
    op: text('op', { enum: REVISION_OPS }).notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('revisions_entry_idx').on(t.entryId, t.id)],
);

/**
 * The per-workspace event log. `seq` is an INTEGER PRIMARY KEY without AUTOINCREMENT:
 * with one writer and savepoint rollbacks it stays gap-free (max + 1).
 */
export const events = sqliteTable(
  'events',
  {
    seq: integer('seq').primaryKey(),
    type: text('type', { enum: EVENT_TYPES }).notNull(),
    at: integer('at').notNull(),
    entryId: text('entry_id'),
    outcome: text('outcome', { enum: CAPTURE_OUTCOMES }),
    // A JSON snapshot of the edge for LINKED/UNLINKED events (the edge may be gone later).
    edge: text('edge'),
    // Event-specific details as JSON (status change, staleness counts, ...).
    data: text('data'),
  },
  (t) => [index('events_entry_idx').on(t.entryId), index('events_type_idx').on(t.type, t.seq)],
);

/**
 * Each entry's embedding for the configured model: a projection of the content, derived
 * and rebuilt at will (`reindex --vectors`), never exported. `seq` only grows
 * (AUTOINCREMENT), so a reader that remembers the last one it saw can load only what
 * changed since. A row is current when its model, dimension and content hash match; `docs`
 * is the workspace's document count whose term frequencies weighed the words (glove).
 */
export const entryVectors = sqliteTable(
  'entry_vectors',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    entryId: text('entry_id')
      .notNull()
      .references(() => entries.id, { onDelete: 'cascade' }),
    model: text('model').notNull(),
    dim: integer('dim').notNull(),
    contentHash: text('content_hash').notNull(),
    docs: integer('docs').notNull().default(0),
    /** Little-endian float32 × dim, unit length. */
    vector: blob('vector', { mode: 'buffer' }).notNull(),
  },
  (t) => [uniqueIndex('entry_vectors_entry_unique').on(t.entryId), index('entry_vectors_model_idx').on(t.model, t.seq)],
);

/**
 * The vectors removed from entry_vectors (a trigger writes them, whoever deletes: forget,
 * changed content, reindex, another process), so a cached matrix drops just those rows
 * instead of reloading every vector. Only the newest are kept (see the migration).
 */
export const entryVectorDrops = sqliteTable('entry_vector_drops', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  /** The removed row's seq: a matrix drops the entry only while it holds that very row. */
  vectorSeq: integer('vector_seq').notNull(),
  entryId: text('entry_id').notNull(),
});

/** Maintenance runs and other privileged operations on this workspace. */
export const auditLog = sqliteTable('audit_log', {
  id: integer('id').primaryKey(),
  at: integer('at').notNull(),
  actor: text('actor'),
  action: text('action').notNull(),
  details: text('details').notNull().default(sql`'{}'`),
});

/**
 * The LLM binding's work: one row per captured entry it still has to look at, written in the
 * capture's own transaction (so a restart resumes it) and deleted once the model answered.
 * `ask` lists the classification fields the model proposes (JSON); `conflicts` asks for the
 * contradiction check. Rows exist only while SPHERE_LLM is on.
 */
export const llmQueue = sqliteTable('llm_queue', {
  entryId: text('entry_id')
    .primaryKey()
    .references(() => entries.id, { onDelete: 'cascade' }),
  ask: text('ask').notNull().default(sql`'[]'`),
  conflicts: integer('conflicts').notNull().default(0),
  attempts: integer('attempts').notNull().default(0),
  enqueuedAt: integer('enqueued_at').notNull(),
});

/**
 * Where an entry's kind, volatility and importance came from, for entries the LLM binding
 * was asked to classify (other entries' come from the caller, or volatility_source).
 */
export const entryClassifications = sqliteTable('entry_classifications', {
  entryId: text('entry_id')
    .primaryKey()
    .references(() => entries.id, { onDelete: 'cascade' }),
  /** JSON: each field's source, e.g. {"kind":"MODEL","volatility":"DEFAULT","importance":"CALLER"}. */
  sources: text('sources').notNull(),
  model: text('model'),
  at: integer('at').notNull(),
});

/**
 * What the LLM binding found between a newer entry and an older one: information, never a
 * rewrite. Forgetting either entry removes the row.
 */
export const entryConflicts = sqliteTable(
  'entry_conflicts',
  {
    id: integer('id').primaryKey(),
    newerId: text('newer_id')
      .notNull()
      .references(() => entries.id, { onDelete: 'cascade' }),
    olderId: text('older_id')
      .notNull()
      .references(() => entries.id, { onDelete: 'cascade' }),
    relation: text('relation', { enum: CONFLICT_RELATIONS }).notNull(),
    reason: text('reason').notNull(),
    confidence: real('confidence'),
    model: text('model').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [
    uniqueIndex('entry_conflicts_pair_unique').on(t.newerId, t.olderId),
    index('entry_conflicts_older_idx').on(t.olderId),
  ],
);

export const schema = {
  entries,
  tags,
  edges,
  revisions,
  events,
  entryVectors,
  entryVectorDrops,
  auditLog,
  llmQueue,
  entryClassifications,
  entryConflicts,
};

export type EntryRow = typeof entries.$inferSelect;
export type EdgeRow = typeof edges.$inferSelect;
export type RevisionRow = typeof revisions.$inferSelect;
export type EventRow = typeof events.$inferSelect;
