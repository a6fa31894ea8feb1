import { eq } from 'drizzle-orm';
import type { EntryStatus, RevisionOp } from '../contract/enums.ts';
import { badInput, DomainError } from '../contract/errors.ts';
import { checkContent, LIMITS } from '../contract/limits.ts';
import { type EntryRow, entries, revisions } from '../db/schema.ts';
import type { WriteScope } from '../db/writer.ts';
import { contentHash } from './model.ts';
import { requireEntry } from './queries.ts';

/** Validates an append's text before any write is queued; the combined length needs the entry. */
export function checkAppendInput(addition: string): void {
  checkContent(addition, 'addition');
}

/** Validates an update's new content before any write is queued. */
export function checkUpdateInput(content: string): void {
  checkContent(content);
}

/** Appends text to an entry: the old content becomes an APPEND revision. */
export async function appendEntry(scope: WriteScope, id: string, addition: string): Promise<EntryRow> {
  checkAppendInput(addition);
  const entry = await requireEntry(scope.db, id);
  const content = `${entry.content}\n\n${addition}`;
  if (content.length > LIMITS.contentMax) {
    throw badInput(`the appended content would be longer than ${LIMITS.contentMax} characters`, 'addition');
  }
  return revise(scope, entry, content, 'APPEND');
}

/**
 * Replaces an entry's content: the old content becomes an UPDATE revision. With
 * `expectedContentHash`, only if the content is still the one the caller rewrote (read in the
 * same transaction as the write, so no other write slips in between): a rewrite prepared from
 * content that has since been appended to or rewritten is refused with CONFLICT, not applied.
 */
export async function updateEntry(
  scope: WriteScope,
  id: string,
  content: string,
  expectedContentHash?: string | null,
): Promise<EntryRow> {
  checkUpdateInput(content);
  const entry = await requireEntry(scope.db, id);
  if (expectedContentHash != null && expectedContentHash !== entry.contentHash) {
    throw new DomainError(
      'CONFLICT',
      'the entry’s content changed after it was read (it was appended to or rewritten); read it again and rewrite that',
      { id: entry.id, contentHash: entry.contentHash, field: 'expectedContentHash' },
    );
  }
  return revise(scope, entry, content, 'UPDATE');
}

async function revise(scope: WriteScope, entry: EntryRow, content: string, op: RevisionOp): Promise<EntryRow> {
  const { db, now } = scope;
  await db.insert(revisions).values({ entryId: entry.id, content: entry.content, op, at: now });
  // The FTS trigger on UPDATE OF content keeps the index in step inside this transaction.
  const [row] = await db
    .update(entries)
    .set({ content, contentHash: contentHash(content), updatedAt: now })
    .where(eq(entries.id, entry.id))
    .returning();
  if (!row) throw new Error('entry update returned no row');
  await scope.emit({ type: op === 'APPEND' ? 'APPENDED' : 'UPDATED', entryId: entry.id });
  return row;
}

/** Sets an entry's status; the change refreshes updated_at, so a revived entry is not re-marked stale at once. */
export async function setEntryStatus(scope: WriteScope, id: string, status: EntryStatus): Promise<EntryRow> {
  const { db, now } = scope;
  const entry = await requireEntry(db, id);
  const [row] = await db.update(entries).set({ status, updatedAt: now }).where(eq(entries.id, id)).returning();
  if (!row) throw new Error('entry update returned no row');
  await scope.emit({ type: 'STATUS_CHANGED', entryId: id, data: { from: entry.status, to: status } });
  return row;
}

/** Removes an entry with its tags, revisions, edges (both ends) and FTS row; the event log keeps its id. */
export async function forgetEntry(scope: WriteScope, id: string): Promise<{ id: string; forgotten: true }> {
  const { db } = scope;
  await requireEntry(db, id);
  // Tags, revisions and edges go by ON DELETE CASCADE; the FTS row by trigger.
  await db.delete(entries).where(eq(entries.id, id));
  await scope.emit({ type: 'FORGOTTEN', entryId: id });
  return { id, forgotten: true };
}
