import { asc, eq, inArray, type Placeholder, sql } from 'drizzle-orm';
import { notFound } from '../contract/errors.ts';
import type { EventDraft } from '../contract/events.ts';
import { normalizeTags } from '../contract/limits.ts';
import { SEMANTIC_CAPTURE } from '../contract/policy.ts';
import type { Db } from '../db/client.ts';
import { ENTRY_INSERT_COLUMNS, type NewEntryRow } from '../db/mappers.ts';
import { type EntryRow, entries, tags } from '../db/schema.ts';
import type { WriteScope } from '../db/writer.ts';
import { type CaptureInput, type CaptureResult, checkCaptureInput, insertTagsSql, newEntryRow } from './capture.ts';
import { existingStatuses, linkInCapture } from './embeddings/auto-link.ts';
import type { CapturePlan } from './embeddings/semantic.ts';
import { writeVector } from './embeddings/vector-store.ts';
import { upsertEdge } from './link.ts';
import { contentHash } from './model.ts';
import { findEntry } from './queries.ts';

/*
 * A capture with an embedding binding on: the inline embedder's vector and look-alikes,
 * found before the write, decide duplicates by meaning as well as by content, and the new
 * entry is stored with its vector and its inferred links in the same write. It reads as it
 * goes (look-alikes' statuses, the duplicate's tags), so it runs as a plain write rather
 * than the planned write plain captures are (see capture.ts).
 */

// The writer builds these once (see WriteScope.prepared).
const firstWithHash = (db: Db) =>
  db
    .select()
    .from(entries)
    .where(eq(entries.contentHash, sql.placeholder('hash')))
    .orderBy(asc(entries.n))
    .limit(1)
    .prepare();

/** Every column but the rowid `n`, each bound by name from the row. */
const entryPlaceholders = Object.fromEntries(ENTRY_INSERT_COLUMNS.map((c) => [c, sql.placeholder(c)])) as Record<
  keyof NewEntryRow,
  Placeholder
>;

const insertEntryRow = (db: Db) => db.insert(entries).values(entryPlaceholders).prepare();

/**
 * Stores a memory, deciding its outcome as the contract orders it: REPLACED when it
 * replaces a known entry, else MERGED/BLOCKED when the same normalized content exists,
 * else STORED. BLOCKED writes nothing and emits nothing.
 *
 * With a capture plan (an inline embedder made the vector before the write), an ACTIVE
 * entry at or above the duplicate cosine counts as the same content, near duplicates are
 * reported, and the new entry is stored with its vector and linked to its look-alikes, all
 * in this one write.
 */
export async function captureWithPlan(
  scope: WriteScope,
  input: CaptureInput,
  plan: CapturePlan,
): Promise<CaptureResult> {
  checkCaptureInput(input);
  const { db, now } = scope;
  const hash = contentHash(input.content);
  const newTags = normalizeTags(input.tags);

  if (input.replaces != null) {
    const old = await findEntry(db, input.replaces);
    if (!old) throw notFound(input.replaces);
    const entry = await insertEntry(scope, input, hash, newTags);
    await db.update(entries).set({ status: 'SUPERSEDED', updatedAt: now }).where(eq(entries.id, old.id));
    await upsertEdge(db, now, { src: entry.id, dst: old.id, type: 'SUPERSEDES', weight: 1, provenance: 'SYSTEM' });
    await storePlannedVector(db, entry, plan);
    await scope.emit({ type: 'CAPTURED', entryId: entry.id, outcome: 'REPLACED', data: { replaced: old.id } });
    return { outcome: 'REPLACED', entry, matchId: old.id, similar: [] };
  }

  const [existing] = await scope.prepared(firstWithHash).all({ hash });
  if (existing) return mergeOrBlock(scope, existing, newTags, null);
  const semantic = await semanticMatches(db, plan);
  if (semantic?.duplicate) return mergeOrBlock(scope, semantic.duplicate.entry, newTags, semantic.duplicate.score);

  const entry = await insertEntry(scope, input, hash, newTags);
  const draft: EventDraft = { type: 'CAPTURED', entryId: entry.id, outcome: 'STORED' };
  await storePlannedVector(db, entry, plan);
  const links = await linkInCapture(db, now, entry.id, plan.neighbours);
  if (links.length > 0) draft.data = { linked: links.map((l) => (l.src === entry.id ? l.dst : l.src)) };
  await scope.emit(draft);
  return { outcome: 'STORED', entry, matchId: null, similar: semantic?.similar ?? [] };
}

/** The existing entry takes the capture: MERGED when the capture brings tags it lacks, else BLOCKED. */
async function mergeOrBlock(
  scope: WriteScope,
  existing: EntryRow,
  newTags: string[],
  cosine: number | null,
): Promise<CaptureResult> {
  const { db, now } = scope;
  const have = new Set(
    (await db.select({ tag: tags.tag }).from(tags).where(eq(tags.entryId, existing.id))).map((r) => r.tag),
  );
  const missing = newTags.filter((t) => !have.has(t));
  if (missing.length === 0) return { outcome: 'BLOCKED', entry: existing, matchId: existing.id, similar: [] };
  await db.insert(tags).values(missing.map((tag) => ({ entryId: existing.id, tag })));
  const [merged] = await db.update(entries).set({ updatedAt: now }).where(eq(entries.id, existing.id)).returning();
  const data: Record<string, unknown> = { addedTags: missing };
  if (cosine !== null) data.cosine = cosine;
  await scope.emit({ type: 'CAPTURED', entryId: existing.id, outcome: 'MERGED', data });
  return { outcome: 'MERGED', entry: merged ?? existing, matchId: existing.id, similar: [] };
}

/**
 * The plan's look-alikes as they are now, inside the write: the first ACTIVE one at or
 * above the duplicate cosine, and the near duplicates below it.
 */
async function semanticMatches(db: Db, plan: CapturePlan) {
  const close = plan.neighbours.filter((m) => m.cosine >= SEMANTIC_CAPTURE.similar);
  if (close.length === 0) return null;
  const statuses = await existingStatuses(
    db,
    close.map((m) => m.id),
  );
  const dup = close.find((m) => m.cosine >= SEMANTIC_CAPTURE.duplicate && statuses.get(m.id) === 'ACTIVE');
  const near = close
    .filter((m) => m.cosine < SEMANTIC_CAPTURE.duplicate && statuses.has(m.id))
    .slice(0, SEMANTIC_CAPTURE.similarMax);
  const wanted = [...(dup ? [dup.id] : []), ...near.map((m) => m.id)];
  const rows = new Map((await db.select().from(entries).where(inArray(entries.id, wanted))).map((r) => [r.id, r]));
  return {
    duplicate: dup && rows.has(dup.id) ? { entry: rows.get(dup.id)!, score: dup.cosine } : null,
    similar: near.filter((m) => rows.has(m.id)).map((m) => ({ entry: rows.get(m.id)!, score: m.cosine })),
  };
}

async function storePlannedVector(db: Db, entry: EntryRow, plan: CapturePlan): Promise<void> {
  await writeVector(
    db,
    { model: plan.model, dim: plan.dim },
    { entryId: entry.id, contentHash: entry.contentHash, docs: plan.docs, vector: plan.vector },
  );
}

async function insertEntry(
  scope: WriteScope,
  input: CaptureInput,
  hash: string,
  entryTags: string[],
): Promise<EntryRow> {
  const row = newEntryRow(input, hash, scope.now);

  // The row is known in full; only its rowid comes back (no RETURNING round of decoding).
  const inserted = await scope.prepared(insertEntryRow).run(row);
  const entry: EntryRow = { n: Number(inserted.lastInsertRowid), ...row };
  if (entryTags.length > 0)
    await scope.exec(
      insertTagsSql(entryTags.length),
      entryTags.flatMap((tag) => [entry.id, tag]),
    );
  return entry;
}
