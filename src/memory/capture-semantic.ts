import { normalizeTags } from '../contract/limits.ts';
import { entryFromRow } from '../db/mappers.ts';
import type { PlannedWrite } from '../db/planned-write.ts';
import type { EntryRow } from '../db/schema.ts';
import {
  type CaptureInput,
  type CaptureResult,
  checkCaptureInput,
  firstWithHash,
  insertEntry,
  replaceWrite,
  takenBy,
} from './capture.ts';
import { linkWeight } from './embeddings/auto-link.ts';
import type { CapturePlan } from './embeddings/semantic.ts';
import { writeVectorStatement } from './embeddings/vector-store.ts';
import { canonicalEnds, INSERT_EDGE } from './link.ts';
import { contentHash } from './model.ts';

/*
 * A capture with an embedding binding on: the inline embedder's vector and look-alikes,
 * found before the write, decide duplicates by meaning as well as by content, and the new
 * entry is stored with its vector and its inferred links in the same write. Like a plain
 * capture it is a planned write: it reads the entry with the same content and the
 * look-alikes as they are now (each with its status and tags), and everything else follows
 * from those answers, so its SQL runs on the write thread with its group's.
 */

/** The look-alikes with their tags, by id. */
const LOOK_ALIKES = `SELECT e.*, (SELECT json_group_array(t.tag) FROM tags t WHERE t.entry_id = e.id) AS tags_json
  FROM entries e WHERE e.id IN (SELECT value FROM json_each(?))`;

/**
 * Stores a memory, deciding its outcome as the contract orders it: REPLACED when it
 * replaces a known entry, else MERGED/BLOCKED when the same normalized content exists or an
 * ACTIVE entry is at or above the duplicate cosine, else STORED, with the near duplicates
 * reported and the new entry linked to its look-alikes. BLOCKED writes nothing and emits nothing.
 */
export function semanticCaptureWrite(input: CaptureInput, plan: CapturePlan): PlannedWrite<CaptureResult> {
  checkCaptureInput(input);
  const hash = contentHash(input.content);
  const newTags = normalizeTags(input.tags);
  const vector = (entry: EntryRow) =>
    writeVectorStatement(
      { model: plan.model, dim: plan.dim },
      { entryId: entry.id, contentHash: entry.contentHash, docs: plan.docs, vector: plan.vector },
    );
  if (input.replaces != null) {
    return replaceWrite(input, input.replaces, hash, newTags, (p, entry) => {
      const { sql, args } = vector(entry);
      p.run(sql, args);
    });
  }
  const t = plan.thresholds;
  const near = plan.neighbours.filter((m) => m.cosine >= t.link);
  const ids = near.map((m) => m.id);
  return {
    // A look-alike's status and tags are read: a write changing them must not share the group.
    keys: [`hash:${hash}`, ...ids.map((id) => `entry:${id}`)],
    reads: [firstWithHash(hash), ...(ids.length > 0 ? [{ sql: LOOK_ALIKES, args: [JSON.stringify(ids)] }] : [])],
    decide(p, [found, alike]) {
      const same = found?.rows[0];
      if (same) return takenBy(p, same, newTags);
      // A look-alike forgotten since the scan is not among the rows.
      const rows = new Map((alike?.rows ?? []).map((r) => [String(r.id), r]));
      const dup = near.find((m) => m.cosine >= t.duplicate && rows.get(m.id)?.status === 'ACTIVE');
      if (dup) return takenBy(p, rows.get(dup.id)!, newTags, dup.cosine);
      const similar = near
        .filter((m) => m.cosine >= t.similar && m.cosine < t.duplicate && rows.has(m.id))
        .slice(0, t.similarMax)
        .map((m) => ({ entry: entryFromRow(rows.get(m.id)!), score: m.cosine }));

      const entry = insertEntry(p, input, hash, newTags);
      const { sql, args } = vector(entry);
      p.run(sql, args);
      // New, the entry has no edges yet: each link is a plain insert.
      const links = near.filter((m) => rows.has(m.id)).slice(0, t.linksMax);
      for (const m of links) {
        const [src, dst] = canonicalEnds(entry.id, m.id, 'RELATES_TO');
        p.run(INSERT_EDGE, [src, dst, 'RELATES_TO', linkWeight(m.cosine), 'INFERRED', null, p.now, p.now]);
      }
      p.emit({
        type: 'CAPTURED',
        entryId: entry.id,
        outcome: 'STORED',
        ...(links.length > 0 ? { data: { linked: links.map((m) => m.id) } } : {}),
      });
      return { outcome: 'STORED', entry, matchId: null, similar };
    },
  };
}
