import { sql } from 'drizzle-orm';
import type { ClassificationField, ClassificationSource, ConflictRelation } from '../../contract/enums.ts';
import type { Db } from '../../db/client.ts';
import type { PlannedWrite } from '../../db/planned-write.ts';
import type { EntryRow } from '../../db/schema.ts';
import type { CaptureResult } from '../capture.ts';
import { baseSources } from './binding.ts';

/** Where each field of an entry's classification came from, and the model that answered. */
export interface Classification {
  kind: ClassificationSource;
  volatility: ClassificationSource;
  importance: ClassificationSource;
  model: string | null;
  at: number | null;
}

/** A finding of the LLM binding, seen from one of its two entries. */
export interface Conflict {
  /** The other entry. */
  otherId: string;
  /** Whether the entry it is seen from is the newer of the two. */
  newer: boolean;
  relation: ConflictRelation;
  reason: string;
  confidence: number | null;
  model: string;
  at: number;
}

const INSERT_QUEUE = 'INSERT INTO llm_queue (entry_id, ask, conflicts, enqueued_at) VALUES (?, ?, 1, ?)';
const INSERT_SOURCES = 'INSERT INTO entry_classifications (entry_id, sources, model, at) VALUES (?, ?, NULL, ?)';

/**
 * A capture that also queues its entry for the LLM binding, in the same transaction: a stored
 * or replacing capture gets a queue row (and, when fields are asked, their sources as
 * DEFAULT until the model answers). MERGED and BLOCKED captures queue nothing.
 */
export function queuedForModel(
  write: PlannedWrite<CaptureResult>,
  ask: readonly ClassificationField[],
): PlannedWrite<CaptureResult> {
  return {
    ...write,
    decide(plan, answers) {
      const result = write.decide(plan, answers);
      if (result.outcome !== 'STORED' && result.outcome !== 'REPLACED') return result;
      plan.run(INSERT_QUEUE, [result.entry.id, JSON.stringify(ask), plan.now]);
      if (ask.length > 0) {
        plan.run(INSERT_SOURCES, [result.entry.id, JSON.stringify(baseSources(result.entry, ask)), plan.now]);
      }
      return result;
    },
  };
}

/** The classification of each entry: the recorded one, else the caller's (volatility by its source). */
export async function classificationsOf(db: Db, entries: readonly EntryRow[]): Promise<Classification[]> {
  const ids = entries.map((e) => e.id);
  const rows =
    ids.length === 0
      ? []
      : await db.all<{ entry_id: string; sources: string; model: string | null; at: number }>(
          sql`SELECT entry_id, sources, model, at FROM entry_classifications WHERE entry_id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
        );
  const byId = new Map(rows.map((r) => [r.entry_id, r]));
  return entries.map((entry) => {
    const row = byId.get(entry.id);
    const base = baseSources(entry, []);
    if (!row)
      return { kind: base.kind!, volatility: base.volatility!, importance: base.importance!, model: null, at: null };
    const s = JSON.parse(row.sources) as Partial<Record<string, ClassificationSource>>;
    return {
      kind: s.kind ?? base.kind!,
      volatility: s.volatility ?? base.volatility!,
      importance: s.importance ?? base.importance!,
      model: row.model,
      at: row.model ? Number(row.at) : null,
    };
  });
}

/** Each entry's findings, newest first, at most `first` per entry. */
export async function conflictsOf(db: Db, ids: readonly string[], first: number): Promise<Map<string, Conflict[]>> {
  const out = new Map<string, Conflict[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const list = JSON.stringify(ids);
  const rows = await db.all<{
    self: string;
    other: string;
    newer: number;
    relation: ConflictRelation;
    reason: string;
    confidence: number | null;
    model: string;
    at: number;
  }>(sql`
    SELECT self, other, newer, relation, reason, confidence, model, at FROM (
      SELECT *, row_number() OVER (PARTITION BY self ORDER BY at DESC, id DESC) AS k FROM (
        SELECT c.id, c.newer_id AS self, c.older_id AS other, 1 AS newer, c.relation, c.reason, c.confidence, c.model, c.at
          FROM entry_conflicts c WHERE c.newer_id IN (SELECT value FROM json_each(${list}))
        UNION ALL
        SELECT c.id, c.older_id AS self, c.newer_id AS other, 0 AS newer, c.relation, c.reason, c.confidence, c.model, c.at
          FROM entry_conflicts c WHERE c.older_id IN (SELECT value FROM json_each(${list}))
      )
    ) WHERE k <= ${first}
    ORDER BY self, at DESC`);
  for (const r of rows) {
    out.get(r.self)?.push({
      otherId: r.other,
      newer: Number(r.newer) === 1,
      relation: r.relation,
      reason: r.reason,
      confidence: r.confidence === null ? null : Number(r.confidence),
      model: r.model,
      at: Number(r.at),
    });
  }
  return out;
}

/** Of `ids`, those a newer entry contradicts or updates, with the newer ones' ids. */
export async function contradictedAmong(db: Db, ids: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (ids.length === 0) return out;
  const rows = await db.all<{ older_id: string; newer_id: string }>(
    sql`SELECT older_id, newer_id FROM entry_conflicts WHERE older_id IN (SELECT value FROM json_each(${JSON.stringify(ids)})) ORDER BY at DESC LIMIT 1000`,
  );
  for (const r of rows) {
    const list = out.get(r.older_id) ?? [];
    if (list.length < 10) list.push(r.newer_id);
    out.set(r.older_id, list);
  }
  return out;
}
