import { checkRange, LIST_PAGES } from '../../contract/limits.ts';
import type { EntryRow } from '../../db/schema.ts';
import { type Brief, buildBrief } from '../../memory/brief.ts';
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

const StatsRef = builder.objectRef<WorkspaceStats>('Stats').implement({
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
    recent: t.field({ type: [EntryRef], description: 'The newest entries.', resolve: (b): EntryRow[] => b.recent }),
    important: t.field({
      type: [EntryRef],
      description: 'The most important entries in force.',
      resolve: (b) => b.important,
    }),
    stale: t.field({
      type: [EntryRef],
      description: 'Entries that are stale and want review.',
      resolve: (b) => b.stale,
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
