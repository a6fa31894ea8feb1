import type { InStatement, Row } from '@libsql/client';
import { getTableColumns } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { CaptureOutcome, ClaimTag, EntryKind, EntryStatus, Volatility } from '../contract/enums.ts';
import { badInput, notFound } from '../contract/errors.ts';
import { checkContent, INSTANTS, LIMITS, normalizeTags, refuseNul } from '../contract/limits.ts';
import { ENTRY_INSERT_COLUMNS, entryFromRow, type NewEntryRow } from '../db/mappers.ts';
import { ANY_KEY, type PlannedWrite, type WritePlan } from '../db/planned-write.ts';
import { type EntryRow, entries } from '../db/schema.ts';
import type { WriteScope } from '../db/writer.ts';
import { contentHash } from './model.ts';

export interface CaptureInput {
  content: string;
  tags?: readonly string[] | null;
  source?: string | null;
  kind?: EntryKind | null;
  status?: EntryStatus | null;
  volatility?: Volatility | null;
  importance?: number | null;
  claimTag?: ClaimTag | null;
  evidenceRef?: string | null;
  observedAt?: Date | null;
  replaces?: string | null;
}

export interface CaptureResult {
  outcome: CaptureOutcome;
  entry: EntryRow;
  matchId: string | null;
  /** Near duplicates (cosine in [similar, duplicate)) among stored entries; empty without embeddings. */
  similar: { entry: EntryRow; score: number }[];
}

/** Validates everything about a capture that needs no database, so bad input never queues a write. */
export function checkCaptureInput(input: CaptureInput): void {
  checkContent(input.content);
  normalizeTags(input.tags);
  const importance = input.importance ?? 0.5;
  if (!Number.isFinite(importance) || importance < 0 || importance > 1) {
    throw badInput('importance must be between 0 and 1', 'importance');
  }
  if (input.source != null) refuseNul(input.source, 'source');
  if (input.evidenceRef != null) refuseNul(input.evidenceRef, 'evidenceRef');
  if (input.source != null && input.source.length > LIMITS.sourceMax) {
    throw badInput(`source is longer than ${LIMITS.sourceMax} characters`, 'source');
  }
  if (input.evidenceRef != null && input.evidenceRef.length > LIMITS.evidenceRefMax) {
    throw badInput(`evidenceRef is longer than ${LIMITS.evidenceRefMax} characters`, 'evidenceRef');
  }
  // The same bound as import's, so that every workspace the API writes can be exported and imported again.
  if (input.observedAt != null && input.observedAt.getTime() > INSTANTS.max) {
    throw badInput(`observedAt must not be later than ${new Date(INSTANTS.max).toISOString()}`, 'observedAt');
  }
}

const ENTRY_COLUMNS = getTableColumns(entries);

/** Every column of an entry, its rowid `n` included: the writer gives each insert its rowid (see WritePlan). */
const INSERT_ENTRY = `INSERT INTO entries (n, ${ENTRY_INSERT_COLUMNS.map((c) => ENTRY_COLUMNS[c].name).join(', ')}) VALUES (?${', ?'.repeat(ENTRY_INSERT_COLUMNS.length)})`;

/** The first entry with a content hash, with its tags: all a capture needs to know about what exists. */
const FIRST_WITH_HASH = `SELECT e.*, (SELECT json_group_array(t.tag) FROM tags t WHERE t.entry_id = e.id) AS tags_json
  FROM entries e WHERE e.content_hash = ? ORDER BY e.n LIMIT 1`;

const ENTRY_BY_ID = 'SELECT * FROM entries WHERE id = ? LIMIT 1';

const INSERT_SUPERSEDES =
  "INSERT INTO edges (src, dst, type, weight, provenance, metadata, created_at, updated_at) VALUES (?, ?, 'SUPERSEDES', 1, 'SYSTEM', NULL, ?, ?)";

/** One multi-row INSERT per tag count (1 to LIMITS.tagsMax): each a statement the client keeps prepared. */
const tagInserts: string[] = [];
export const insertTagsSql = (count: number): string =>
  (tagInserts[count] ??= `INSERT INTO tags (entry_id, tag) VALUES ${new Array(count).fill('(?, ?)').join(', ')}`);

/**
 * Stores a memory inside a write, deciding its outcome as the contract orders it (see
 * captureWrite).
 */
export function captureEntry(scope: WriteScope, input: CaptureInput): Promise<CaptureResult> {
  return scope.apply(captureWrite(input));
}

/**
 * A capture as a planned write: REPLACED when it replaces a known entry, else MERGED/BLOCKED
 * when the same normalized content exists, else STORED. BLOCKED writes nothing and emits
 * nothing. Its one read (the entry with the same content, or the one it replaces) is all its
 * statements depend on, so a group of captures costs a hosted database two round trips.
 */
export function captureWrite(input: CaptureInput): PlannedWrite<CaptureResult> {
  checkCaptureInput(input);
  const hash = contentHash(input.content);
  const newTags = normalizeTags(input.tags);
  if (input.replaces != null) return replaceWrite(input, input.replaces, hash, newTags);
  return {
    keys: [`hash:${hash}`],
    reads: [firstWithHash(hash)],
    usuallyFindsNothing: true,
    decide(plan, [found]) {
      const row = found?.rows[0];
      if (row) return takenBy(plan, row, newTags);
      const entry = insertEntry(plan, input, hash, newTags);
      plan.emit({ type: 'CAPTURED', entryId: entry.id, outcome: 'STORED' });
      return { outcome: 'STORED', entry, matchId: null, similar: [] };
    },
  };
}

/** The read of the first entry with a content hash, with its tags (`tags_json`). */
export const firstWithHash = (hash: string): InStatement => ({ sql: FIRST_WITH_HASH, args: [hash] });

/**
 * A capture that replaces the entry `replaces`: the new entry SUPERSEDES it (REPLACED), or
 * NOT_FOUND. `stored` adds what else the new entry gets in the same write (its vector).
 */
export function replaceWrite(
  input: CaptureInput,
  replaces: string,
  hash: string,
  newTags: string[],
  stored: (plan: WritePlan, entry: EntryRow) => void = () => {},
): PlannedWrite<CaptureResult> {
  return {
    // It changes an entry found by id, which a capture of that entry's content would read.
    keys: [ANY_KEY],
    reads: [{ sql: ENTRY_BY_ID, args: [replaces] }],
    decide(plan, [found]) {
      const oldRow = found?.rows[0];
      if (!oldRow) throw notFound(replaces);
      const old = entryFromRow(oldRow);
      const entry = insertEntry(plan, input, hash, newTags);
      plan.run('UPDATE entries SET status = ?, updated_at = ? WHERE id = ?', ['SUPERSEDED', plan.now, old.id]);
      plan.run(INSERT_SUPERSEDES, [entry.id, old.id, plan.now, plan.now]);
      stored(plan, entry);
      plan.emit({ type: 'CAPTURED', entryId: entry.id, outcome: 'REPLACED', data: { replaced: old.id } });
      return { outcome: 'REPLACED', entry, matchId: old.id, similar: [] };
    },
  };
}

/**
 * An existing entry (a row with its `tags_json`) takes the capture: MERGED when the capture
 * brings tags it lacks, else BLOCKED, which writes nothing and emits nothing. A duplicate
 * found by meaning rather than by content says its cosine in the event.
 */
export function takenBy(
  plan: WritePlan,
  row: Row | Record<string, unknown>,
  newTags: readonly string[],
  cosine: number | null = null,
): CaptureResult {
  const existing = entryFromRow(row);
  const have = new Set(JSON.parse(String(row.tags_json)) as string[]);
  const missing = newTags.filter((t) => !have.has(t));
  if (missing.length === 0) return { outcome: 'BLOCKED', entry: existing, matchId: existing.id, similar: [] };
  plan.run(
    insertTagsSql(missing.length),
    missing.flatMap((tag) => [existing.id, tag]),
  );
  plan.run('UPDATE entries SET updated_at = ? WHERE id = ?', [plan.now, existing.id]);
  const data: Record<string, unknown> = { addedTags: missing };
  if (cosine !== null) data.cosine = cosine;
  plan.emit({ type: 'CAPTURED', entryId: existing.id, outcome: 'MERGED', data });
  return { outcome: 'MERGED', entry: { ...existing, updatedAt: plan.now }, matchId: existing.id, similar: [] };
}

/** The row a new entry gets from its capture, with the caller's values or the defaults. */
export function newEntryRow(input: CaptureInput, hash: string, now: number): NewEntryRow {
  return {
    id: uuidv7(),
    content: input.content,
    contentHash: hash,
    source: input.source ?? null,
    kind: input.kind ?? 'SEMANTIC',
    status: input.status ?? 'ACTIVE',
    volatility: input.volatility ?? 'EVOLVING',
    volatilitySource: input.volatility ? 'caller' : 'default',
    importance: input.importance ?? 0.5,
    claimTag: input.claimTag ?? 'UNKNOWN',
    evidenceRef: input.evidenceRef ?? null,
    recallCount: 0,
    observedAt: input.observedAt ? input.observedAt.getTime() : null,
    createdAt: now,
    updatedAt: now,
  };
}

/** Queues a new entry with its tags; its rowid is the plan's next, so nothing waits for an answer. */
export function insertEntry(plan: WritePlan, input: CaptureInput, hash: string, entryTags: string[]): EntryRow {
  const row = newEntryRow(input, hash, plan.now);
  const n = plan.nextEntryN();
  plan.run(INSERT_ENTRY, [n, ...ENTRY_INSERT_COLUMNS.map((c) => row[c])]);
  if (entryTags.length > 0)
    plan.run(
      insertTagsSql(entryTags.length),
      entryTags.flatMap((tag) => [row.id, tag]),
    );
  return { n, ...row };
}
