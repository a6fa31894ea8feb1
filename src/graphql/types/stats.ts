import { checkRange, LIST_PAGES } from '../../contract/limits.ts';
import type { EntryRow } from '../../db/schema.ts';
import { type Brief, buildBrief } from '../../memory/brief.ts';
import type { SemanticStats } from '../../memory/embeddings/semantic.ts';
import type { EmbedderStatus } from '../../memory/embeddings/unavailable.ts';
import {
  type CountBy,
  type TagCount,
  tagCounts,
  tagCursor,
  type WorkspaceStats,
  workspaceStats,
} from '../../memory/queries.ts';
import { builder } from '../builder.ts';
import { readDb } from '../guards.ts';
import { EntryRef } from './entry.ts';
import { EmbedderStateEnum } from './enums.ts';
import { VALUE } from './node.ts';

export const TagCountRef = builder.objectRef<TagCount>('TagCount').implement({
  description: `A tag and how many entries carry it. ${VALUE}`,
  fields: (t) => ({
    tag: t.exposeString('tag', { description: 'The normalized tag.' }),
    count: t.exposeInt('count', { description: 'Entries carrying it.' }),
    cursor: t.string({
      description: 'Opaque position of this tag in the most-used-first order, for `tags(after:)`.',
      resolve: tagCursor,
    }),
  }),
});

const CountByRef = builder.objectRef<CountBy>('CountBy').implement({
  description: `A count of entries or edges sharing one value. ${VALUE}`,
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The value (an enum name).' }),
    count: t.exposeInt('count', { description: 'How many.' }),
  }),
});

const SemanticThresholdsRef = builder.objectRef<SemanticStats['thresholds']>('SemanticThresholds').implement({
  description: `The cosine thresholds the embedding model's vectors are judged by: its profile's, calibrated on paraphrase, retelling and unrelated pairs (SPHERE_EMBEDDINGS_DUPLICATE etc. override them). ${VALUE}`,
  fields: (t) => ({
    duplicate: t.exposeFloat('duplicate', {
      description: 'At or above: a capture is the same memory as an ACTIVE entry (BLOCKED, or MERGED with new tags).',
    }),
    similar: t.exposeFloat('similar', {
      description: 'At or above (below `duplicate`): stored, and the entry is reported in `CaptureResult.similar`.',
    }),
    link: t.exposeFloat('link', { description: 'At or above: linked RELATES_TO, INFERRED, weight = cosine.' }),
    linksMax: t.exposeInt('linksMax', { description: 'Most links one capture makes.' }),
    mmrFloor: t.exposeFloat('mmrFloor', {
      description: 'Recall’s diversity (MMR) counts only the cosine above this as two hits saying the same.',
    }),
  }),
});

const EmbedderStatusRef = builder.objectRef<EmbedderStatus>('EmbedderStatus').implement({
  description: `Where the server's embedder stands (the same as /health says). ${VALUE}`,
  fields: (t) => ({
    state: t.field({ type: EmbedderStateEnum, description: 'Ready, or not reached yet.', resolve: (e) => e.state }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'Why it is unavailable: the last attempt’s error; null when ready.',
    }),
    attempts: t.exposeInt('attempts', { description: 'Failed attempts to reach it in a row; 0 when ready.' }),
    retryAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it is asked again; null when ready.',
      resolve: (e) => e.retryAt,
    }),
    since: t.field({ type: 'DateTime', description: 'When it entered this state.', resolve: (e) => e.since }),
  }),
});

const SemanticStatsRef = builder.objectRef<SemanticStats>('SemanticStats').implement({
  description: `The workspace's vectors for the configured embedding model (SPHERE_EMBEDDINGS). ${VALUE}`,
  fields: (t) => ({
    model: t.exposeString('model', { description: 'The embedding model.' }),
    profile: t.exposeString('profile', {
      description:
        'The model profile (pooling, prefixes, thresholds): `minilm`, `bge-small`, `e5-small` (with `-custom` when a variable changed how it makes vectors), `custom` for a model no profile knows, `glove`.',
    }),
    dim: t.exposeInt('dim', {
      description: 'Its vector size; 0 while the embedder is unavailable and has not told it.',
    }),
    vectors: t.exposeInt('vectors', { description: 'Entries holding a current vector of the model.' }),
    lacking: t.exposeInt('lacking', {
      description: 'Entries lacking one (new, changed, or of another model): filled in by the background queue.',
    }),
    thresholds: t.field({
      type: SemanticThresholdsRef,
      description: 'The model’s thresholds for duplicates, near duplicates, links and MMR.',
      resolve: (s) => s.thresholds,
    }),
    embedder: t.field({
      type: EmbedderStatusRef,
      description: 'The embedder’s state: while unavailable, entries wait in `lacking` and recall is by keyword.',
      resolve: (s) => s.embedder,
    }),
  }),
});

export const StatsRef = builder.objectRef<WorkspaceStats>('Stats').implement({
  description: 'Counts over the whole workspace: one per workspace, so `workspace` is its cache key.',
  fields: (t) => ({
    workspace: t.id({
      description: 'The caller’s workspace id: the key a client caches this by (there is one Stats per workspace).',
      resolve: (_s, _a, ctx) => ctx.workspace.id,
    }),
    entries: t.exposeInt('entries', { description: 'Entries.' }),
    edges: t.exposeInt('edges', { description: 'Edges.' }),
    tags: t.exposeInt('tags', { description: 'Distinct tags.' }),
    revisions: t.exposeInt('revisions', { description: 'Stored revisions.' }),
    byKind: t.field({ type: [CountByRef], description: 'Entries per kind.', resolve: (s) => s.byKind }),
    byStatus: t.field({ type: [CountByRef], description: 'Entries per status.', resolve: (s) => s.byStatus }),
    byVolatility: t.field({
      type: [CountByRef],
      description: 'Entries per volatility.',
      resolve: (s) => s.byVolatility,
    }),
    byClaimTag: t.field({ type: [CountByRef], description: 'Entries per claim tag.', resolve: (s) => s.byClaimTag }),
    edgesByType: t.field({ type: [CountByRef], description: 'Edges per type.', resolve: (s) => s.edgesByType }),
    semantic: t.field({
      type: SemanticStatsRef,
      nullable: true,
      description: 'Vectors and thresholds of semantic recall; null when embeddings are off (SPHERE_EMBEDDINGS).',
      resolve: (_s, _a, ctx) => ctx.semantic?.stats() ?? null,
    }),
    sizeBytes: t.float({
      description:
        'Bytes the workspace’s database holds (pages in use × page size, as its storage quota counts them; a hosted database’s own count).',
      resolve: (_s, _a, ctx) => ctx.storage.size(),
    }),
    quotaBytes: t.float({
      nullable: true,
      description:
        'The workspace’s storage quota in bytes (SPHERE_MAX_WORKSPACE_MB); null when there is none. Writes that would take `sizeBytes` past it are refused with QUOTA_EXCEEDED.',
      resolve: (_s, _a, ctx) => ctx.storage.quotaBytes,
    }),
    oldestAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Creation time of the oldest entry.',
      resolve: (s) => s.oldestAt,
    }),
    newestAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Creation time of the newest entry.',
      resolve: (s) => s.newestAt,
    }),
  }),
});

const BriefRef = builder.objectRef<Brief>('Brief').implement({
  description: 'A digest of the workspace for an agent’s prompt: one per workspace, so `workspace` is its cache key.',
  fields: (t) => ({
    workspace: t.id({
      description: 'The caller’s workspace id: the key a client caches this by (there is one Brief per workspace).',
      resolve: (_b, _a, ctx) => ctx.workspace.id,
    }),
    text: t.exposeString('text', { description: 'Plain text, at most 2,000 characters.' }),
    stats: t.field({ type: StatsRef, description: 'Workspace counts.', resolve: (b) => b.stats }),
    recent: t.field({
      type: [EntryRef],
      description: 'The newest entries.',
      resolve: async (b): Promise<EntryRow[]> => (await b.lists()).recent,
    }),
    important: t.field({
      type: [EntryRef],
      description: 'The most important entries in force.',
      resolve: async (b) => (await b.lists()).important,
    }),
    stale: t.field({
      type: [EntryRef],
      description: 'Entries that are stale and want review.',
      resolve: async (b) => (await b.lists()).stale,
    }),
    topTags: t.field({ type: [TagCountRef], description: 'The most used tags.', resolve: (b) => b.topTags }),
  }),
});

builder.queryFields((t) => ({
  tags: t.field({
    type: [TagCountRef],
    description: 'Tags with their entry counts, most used first (ties by name): the first `first`.',
    args: {
      first: t.arg.int({
        defaultValue: LIST_PAGES.tags.first,
        description: `How many, ${LIST_PAGES.tags.range.map((n) => n.toLocaleString('en-US')).join(' to ')}.`,
      }),
      after: t.arg.string({ description: 'Only tags after this one (a TagCount.cursor).' }),
    },
    resolve: (_r, args, ctx) =>
      tagCounts(
        readDb(ctx),
        checkRange(args.first ?? LIST_PAGES.tags.first, LIST_PAGES.tags.range, 'first'),
        args.after,
      ),
  }),
  stats: t.field({
    type: StatsRef,
    description: 'Counts over the workspace.',
    resolve: (_r, _a, ctx) => workspaceStats(readDb(ctx)),
  }),
  brief: t.field({
    type: BriefRef,
    description: 'A digest of the workspace: counts, top tags, recent, important and stale entries.',
    resolve: (_r, _a, ctx) => buildBrief(readDb(ctx), ctx.now()),
  }),
}));
