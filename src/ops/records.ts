import { z } from 'zod';
import {
  CLAIM_TAGS,
  EDGE_TYPES,
  ENTRY_KINDS,
  ENTRY_STATUSES,
  PROVENANCES,
  REVISION_OPS,
  VOLATILITIES,
  VOLATILITY_SOURCES,
} from '../contract/enums.ts';
import type { EdgeSnapshot } from '../contract/events.ts';
import { INSTANTS, jsonTooDeep, LIMITS } from '../contract/limits.ts';
import { entryToRow, type NewEntryRow } from '../db/mappers.ts';
import type { EntryRow, RevisionRow } from '../db/schema.ts';
import { contentHash } from '../memory/model.ts';

/**
 * The JSON Lines export format, version 1: one record per line, each with a `type`.
 * A header first, then every entry (its tags and revisions inline, oldest revision
 * first), then every edge, then an end record with the counts. Timestamps are
 * ISO-8601 UTC strings with milliseconds, so they round-trip exactly.
 */
export const EXPORT_FORMAT = 'mini-sphere-export';
export const EXPORT_VERSION = 1;

const iso = (ms: number) => new Date(ms).toISOString();
/** An ISO-8601 instant within the bounds the API stores (INSTANTS), as epoch milliseconds. */
const instantFrom = (min: number) =>
  z.iso
    .datetime({ offset: true })
    .transform((s) => Date.parse(s))
    .refine((ms) => ms >= min && ms <= INSTANTS.max, `must lie between ${iso(min)} and ${iso(INSTANTS.max)}`);
/** Times the server's clock stamped. */
const instant = instantFrom(INSTANTS.stampMin);
/** A string without U+0000, which SQLite's text reads stop at (see refuseNul). */
const text = () => z.string().refine((s) => !s.includes('\u0000'), 'must not contain the NUL character (U+0000)');
const content = text()
  .max(LIMITS.contentMax, `must not be longer than ${LIMITS.contentMax} characters`)
  .refine((s) => s.trim().length > 0, 'must not be empty');

export const headerRecord = z.object({
  type: z.literal('header'),
  format: z.literal(EXPORT_FORMAT),
  version: z.number().int().min(1).max(EXPORT_VERSION),
  workspace: z.string(),
  exportedAt: z.string(),
});

const after = (label: string, ms: number) => `must not be before ${label} (${iso(ms)})`;

export const entryRecord = z
  .object({
    type: z.literal('entry'),
    id: text().min(1).max(200),
    content,
    // Derived from content: exported for readers of the file, recomputed on import.
    contentHash: z.string().optional(),
    source: text().max(LIMITS.sourceMax).nullable().default(null),
    kind: z.enum(ENTRY_KINDS),
    status: z.enum(ENTRY_STATUSES),
    volatility: z.enum(VOLATILITIES),
    volatilitySource: z.enum(VOLATILITY_SOURCES),
    importance: z.number().min(0).max(1),
    claimTag: z.enum(CLAIM_TAGS),
    evidenceRef: text().max(LIMITS.evidenceRefMax).nullable().default(null),
    recallCount: z.number().int().min(0).default(0),
    observedAt: instantFrom(INSTANTS.observedMin).nullable().default(null),
    createdAt: instant,
    updatedAt: instant,
    tags: z.array(text().trim().toLowerCase().min(1).max(LIMITS.tagLengthMax)).max(LIMITS.tagsMax).default([]),
    revisions: z.array(z.object({ content, op: z.enum(REVISION_OPS), at: instant })).default([]),
  })
  // What the API writes: an entry changes after it is created, and each revision is the
  // content it had until a change between the two, oldest first.
  .superRefine((e, ctx) => {
    if (e.updatedAt < e.createdAt) {
      ctx.addIssue({ code: 'custom', path: ['updatedAt'], message: after('createdAt', e.createdAt) });
      return;
    }
    let previous = e.createdAt;
    for (const [i, r] of e.revisions.entries()) {
      if (r.at < previous) {
        const label = i === 0 ? 'createdAt' : `revision ${i - 1}`;
        ctx.addIssue({ code: 'custom', path: ['revisions', i, 'at'], message: after(label, previous) });
        return;
      }
      if (r.at > e.updatedAt) {
        ctx.addIssue({
          code: 'custom',
          path: ['revisions', i, 'at'],
          message: `must not be after updatedAt (${iso(e.updatedAt)})`,
        });
        return;
      }
      previous = r.at;
    }
  });

export const edgeRecord = z
  .object({
    type: z.literal('edge'),
    src: text().min(1),
    dst: text().min(1),
    edgeType: z.enum(EDGE_TYPES),
    weight: z.number().gt(0).max(1),
    provenance: z.enum(PROVENANCES),
    metadata: z
      .record(z.string(), z.unknown())
      .nullable()
      .default(null)
      .refine((m) => !jsonTooDeep(m), `must not nest deeper than ${LIMITS.jsonDepthMax} levels`)
      .refine(
        (m) => m === null || JSON.stringify(m).length <= LIMITS.metadataMax,
        `must not be larger than ${LIMITS.metadataMax} characters of JSON`,
      ),
    createdAt: instant,
    updatedAt: instant,
  })
  .refine((e) => e.src !== e.dst, 'an edge cannot link an entry to itself')
  .refine((e) => e.updatedAt >= e.createdAt, {
    path: ['updatedAt'],
    message: 'must not be before createdAt',
  });

export const endRecord = z.object({
  type: z.literal('end'),
  entries: z.number().int().min(0),
  edges: z.number().int().min(0),
});

export const exportRecord = z.discriminatedUnion('type', [headerRecord, entryRecord, edgeRecord, endRecord]);

export type ExportRecord = z.infer<typeof exportRecord>;
export type EntryRecord = z.infer<typeof entryRecord>;
export type EdgeRecord = z.infer<typeof edgeRecord>;
/** What export writes (timestamps as ISO strings). */
export type EntryRecordOut = z.input<typeof entryRecord>;
export type EdgeRecordOut = z.input<typeof edgeRecord>;

/** An entry of the workspace as export writes it, with its tags and its revisions oldest first. */
export function entryRecordOf(
  entry: EntryRow,
  tags: readonly string[],
  revisions: readonly RevisionRow[],
): EntryRecordOut {
  return {
    type: 'entry',
    id: entry.id,
    content: entry.content,
    contentHash: entry.contentHash,
    source: entry.source,
    kind: entry.kind,
    status: entry.status,
    volatility: entry.volatility,
    volatilitySource: entry.volatilitySource,
    importance: entry.importance,
    claimTag: entry.claimTag,
    evidenceRef: entry.evidenceRef,
    recallCount: entry.recallCount,
    observedAt: entry.observedAt == null ? null : iso(entry.observedAt),
    createdAt: iso(entry.createdAt),
    updatedAt: iso(entry.updatedAt),
    tags: [...tags],
    revisions: revisions.map((r) => ({ content: r.content, op: r.op, at: iso(r.at) })),
  };
}

/** The row an imported entry is stored as; its content hash is recomputed, never trusted. */
export function entryRowOf(record: EntryRecord): NewEntryRow {
  return entryToRow({ ...record, contentHash: contentHash(record.content) });
}

/** An edge of the workspace as export writes it. */
export function edgeRecordOf(edge: EdgeSnapshot): EdgeRecordOut {
  return {
    type: 'edge',
    src: edge.src,
    dst: edge.dst,
    edgeType: edge.type,
    weight: edge.weight,
    provenance: edge.provenance,
    metadata: edge.metadata,
    createdAt: iso(edge.createdAt),
    updatedAt: iso(edge.updatedAt),
  };
}

/** An imported edge as the workspace holds it. */
export function edgeOfRecord(record: EdgeRecord): EdgeSnapshot {
  return {
    src: record.src,
    dst: record.dst,
    type: record.edgeType,
    weight: record.weight,
    provenance: record.provenance,
    metadata: record.metadata,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}
