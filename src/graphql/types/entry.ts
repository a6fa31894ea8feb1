import type { GraphQLResolveInfo } from 'graphql';
import { decodeCursor, encodeCursor } from '../../contract/cursor.ts';
import { type CaptureOutcome, CLASSIFICATION_FIELDS, type ClassificationField } from '../../contract/enums.ts';
import { checkRange, LIST_PAGES } from '../../contract/limits.ts';
import { revisionNodeId } from '../../contract/node-ids.ts';
import { READ_DEFAULTS, SEMANTIC_CAPTURE } from '../../contract/policy.ts';
import type { EntryRow, RevisionRow } from '../../db/schema.ts';
import { readFreshness } from '../../memory/bookkeeping.ts';
import { type CaptureInput, captureWrite, checkCaptureInput } from '../../memory/capture.ts';
import { semanticCaptureWrite } from '../../memory/capture-semantic.ts';
import { type Connection, connectionsOf, connectionsPage } from '../../memory/connections.ts';
import { queuedForModel } from '../../memory/llm/records.ts';
import { countEntries, recentEntries, requireEntry } from '../../memory/queries.ts';
import { writeEstimate } from '../../workspaces/storage-quota.ts';
import { builder } from '../builder.ts';
import { checkedFirst, readDb, runGrowingWrite } from '../guards.ts';
import { CUT_CONTENT } from '../loaders.ts';
import { columnsFor, selectedFields } from '../selection.ts';
import {
  CaptureOutcomeEnum,
  ClaimTagEnum,
  ClassificationFieldEnum,
  DirectionEnum,
  EdgeTypeEnum,
  EntryKindEnum,
  EntryStatusEnum,
  FreshnessEnum,
  RevisionOpEnum,
  VolatilityEnum,
} from './enums.ts';
import { NodeRef, VALUE } from './node.ts';

export const EntryRef = builder.objectRef<EntryRow>('Entry');

const RevisionRef = builder.objectRef<RevisionRow>('Revision');
// Implemented in connection.ts, beside Edge: this file needs the ref, not the Edge type.
export const NeighborRef = builder.objectRef<Connection>('Neighbor');

const CONNECTIONS_AFTER = { description: 'Only connections after this one (a Neighbor.cursor).' };
const CONNECTIONS_FIRST = {
  defaultValue: LIST_PAGES.connections.first,
  description: `How many, ${LIST_PAGES.connections.range.map((n) => n.toLocaleString('en-US')).join(' to ')}.`,
};

/**
 * The columns of its row each field of Entry reads, for a parent that reads entries itself
 * (graphView) and may read only the columns its selection needs (columnsFor). A field
 * missing here makes such a parent read whole rows; test/integration/graph-view.test.ts
 * holds every field to the answer it gives on a whole row.
 */
export const ENTRY_FIELD_COLUMNS: Readonly<Record<string, readonly (keyof EntryRow)[]>> = {
  id: ['id'],
  content: ['content'],
  source: ['source'],
  kind: ['kind'],
  status: ['status'],
  volatility: ['volatility'],
  importance: ['importance'],
  claimTag: ['claimTag'],
  evidenceRef: ['evidenceRef'],
  recallCount: ['recallCount'],
  contentHash: ['contentHash'],
  observedAt: ['observedAt'],
  createdAt: ['createdAt'],
  updatedAt: ['updatedAt'],
  // readFreshness's Pick of the row.
  freshness: ['id', 'status', 'volatility', 'updatedAt'],
  // classificationsOf reads the id and, for entries the model was never asked about, the volatility source.
  classification: ['id', 'volatilitySource'],
  conflicts: ['id'],
  tags: ['id'],
  revisions: ['id'],
  connections: ['id'],
};

/**
 * Whether a list resolver must read its entries' text: when the operation selects `content`
 * on them (at `path` below the field), or a field ENTRY_FIELD_COLUMNS does not know. Rows
 * read without it hold '' (a stored text is never empty: writes refuse one), and a `content`
 * still asked of them (through a path this did not see) reads the whole text.
 */
export function readsText(info: GraphQLResolveInfo, path: readonly string[]): boolean {
  const fields = selectedFields(info, path);
  if (fields === null) return false;
  const columns = columnsFor(ENTRY_FIELD_COLUMNS, fields);
  return columns === null || columns.includes('content');
}

EntryRef.implement({
  description: 'A memory: what the agent wrote, how it classified it, and how it connects to other memories.',
  interfaces: [NodeRef],
  fields: (t) => ({
    id: t.exposeID('id', {
      description: 'Opaque id, unique across workspaces and never reused; also its global id for `node`.',
    }),
    content: t.string({
      description: 'The memory text.',
      resolve: (e, _args, ctx) =>
        CUT_CONTENT.has(e) || e.content === ''
          ? ctx.loaders.text.load(e.id).then((whole) => whole ?? e.content)
          : e.content,
    }),
    source: t.exposeString('source', { nullable: true, description: 'Where the memory came from (free text).' }),
    kind: t.field({
      type: EntryKindEnum,
      description: 'What kind of memory this is.',
      resolve: (e) => e.kind,
    }),
    status: t.field({ type: EntryStatusEnum, description: 'Lifecycle status.', resolve: (e) => e.status }),
    volatility: t.field({
      type: VolatilityEnum,
      description: 'How fast it goes out of date.',
      resolve: (e) => e.volatility,
    }),
    importance: t.exposeFloat('importance', { description: 'Importance from 0 to 1.' }),
    claimTag: t.field({
      type: ClaimTagEnum,
      description: 'How well it is supported.',
      resolve: (e) => e.claimTag,
    }),
    evidenceRef: t.exposeString('evidenceRef', { nullable: true, description: 'A pointer to the evidence behind it.' }),
    recallCount: t.exposeInt('recallCount', { description: 'How many times recall has returned it.' }),
    contentHash: t.exposeString('contentHash', {
      description: 'Hex SHA-256 of the normalized content (NFC, trimmed, whitespace folded, lower-cased).',
    }),
    observedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it happened in the world, if known.',
      resolve: (e) => e.observedAt,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was stored.', resolve: (e) => e.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (e) => e.updatedAt }),
    freshness: t.field({
      type: FreshnessEnum,
      description: 'How current it is now, from status, SUPERSEDES edges and age against its volatility.',
      resolve: async (e, _args, ctx) =>
        readFreshness(ctx.workspace.bookkeeper, e, ctx.now(), await ctx.loaders.superseded.load(e.id)),
    }),
    tags: t.stringList({
      description: 'Normalized tags, sorted.',
      resolve: (e, _a, ctx) => ctx.loaders.tags.load(e.id),
    }),
    revisions: t.field({
      type: [RevisionRef],
      description: `Earlier contents, oldest first: the first \`first\` of them.`,
      args: {
        first: t.arg.int({
          defaultValue: LIST_PAGES.revisions.first,
          description: `How many, ${LIST_PAGES.revisions.range.map((n) => n.toLocaleString('en-US')).join(' to ')}.`,
        }),
        after: t.arg.string({ description: 'Only revisions after this one (a Revision.cursor).' }),
      },
      resolve: async (e, args, ctx) => {
        const first = checkRange(args.first ?? LIST_PAGES.revisions.first, LIST_PAGES.revisions.range, 'first');
        const after = args.after == null ? 0 : revisionAfter(args.after);
        return ctx.loaders.revisions.load({ entryId: e.id, after, first });
      },
    }),
    connections: t.field({
      type: [NeighborRef],
      description: 'Edges touching this entry, heaviest first, optionally of one type or direction: the first `first`.',
      args: {
        type: t.arg({ type: EdgeTypeEnum, description: 'Only edges of this type.' }),
        direction: t.arg({
          type: DirectionEnum,
          description: 'OUT or IN (symmetric RELATES_TO edges count as both); BOTH or absent for all.',
        }),
        first: t.arg.int(CONNECTIONS_FIRST),
        after: t.arg.string(CONNECTIONS_AFTER),
      },
      resolve: async (e, args, ctx) => {
        const page = connectionsPage(args);
        return connectionsOf(e.id, await ctx.loaders.connections.load({ entryId: e.id, page }), page);
      },
    }),
  }),
});

RevisionRef.implement({
  description: 'The content of an entry as it was before an append or update.',
  interfaces: [NodeRef],
  fields: (t) => ({
    id: t.id({
      description: 'Opaque global id for `node`, from the revision’s row and its entry; gone with the entry.',
      resolve: (r) => revisionNodeId({ entryId: r.entryId, n: r.id }),
    }),
    content: t.string({
      description: 'The earlier content.',
      resolve: (r, _args, ctx) =>
        CUT_CONTENT.has(r) ? ctx.loaders.revision.load(r.id).then((whole) => whole?.content ?? r.content) : r.content,
    }),
    op: t.field({ type: RevisionOpEnum, description: 'The write that replaced it.', resolve: (r) => r.op }),
    at: t.field({ type: 'DateTime', description: 'When it was replaced.', resolve: (r) => r.at }),
    cursor: t.string({
      description: 'Opaque position of this revision, for `revisions(after:)`.',
      resolve: (r) => encodeCursor('revisions', [r.id]),
    }),
  }),
});

/** The revision id a revisions cursor points at; revisions run oldest first by id. */
function revisionAfter(cursor: string): number {
  return decodeCursor(cursor, 'revisions', ['integer'], 'after')[0] as number;
}

type SimilarEntry = { entry: EntryRow; score: number };

const SimilarEntryRef = builder.objectRef<SimilarEntry>('SimilarEntry').implement({
  description: `A stored entry whose meaning is close to a capture's (embeddings on). ${VALUE}`,
  fields: (t) => ({
    entry: t.field({ type: EntryRef, description: 'The similar entry.', resolve: (r) => r.entry }),
    score: t.exposeFloat('score', { description: 'Cosine similarity of the two entries’ vectors (0..1).' }),
  }),
});

const CaptureResultRef = builder
  .objectRef<{ outcome: CaptureOutcome; entry: EntryRow; matchId: string | null; similar?: SimilarEntry[] }>(
    'CaptureResult',
  )
  .implement({
    description: `What a capture did and the entry it concerns. ${VALUE}`,
    fields: (t) => ({
      outcome: t.field({
        type: CaptureOutcomeEnum,
        description: 'STORED, BLOCKED, MERGED or REPLACED.',
        resolve: (r) => r.outcome,
      }),
      entry: t.field({
        type: EntryRef,
        description: 'The new entry (STORED, REPLACED) or the existing one (BLOCKED, MERGED).',
        resolve: (r) => r.entry,
      }),
      matchId: t.exposeID('matchId', {
        nullable: true,
        description: 'The matching entry (BLOCKED, MERGED) or the replaced one (REPLACED).',
      }),
      replaced: t.field({
        type: EntryRef,
        nullable: true,
        description:
          'For REPLACED: the entry this capture replaced, as it is now (SUPERSEDED, with the new SUPERSEDES edge), so a normalized client cache updates it; null otherwise.',
        // The capture changed it: a copy the loader read before the write would be stale.
        resolve: (r, _a, ctx) =>
          r.outcome === 'REPLACED' && r.matchId ? ctx.loaders.entry.clear(r.matchId).load(r.matchId) : null,
      }),
      similar: t.field({
        type: [SimilarEntryRef],
        description: `Near duplicates of a STORED entry: stored entries whose vectors' cosine is at least ${SEMANTIC_CAPTURE.similar} but below the duplicate threshold ${SEMANTIC_CAPTURE.duplicate}. Empty when embeddings are off or computed after the capture (an endpoint).`,
        resolve: (r) => r.similar ?? [],
      }),
    }),
  });

const CaptureInputRef = builder.inputType('CaptureInput', {
  description: 'A memory to store, classified by the writer.',
  fields: (t) => ({
    content: t.string({ required: true, description: 'The memory text, 1 to 100,000 characters after trimming.' }),
    tags: t.stringList({ description: 'Up to 32 tags of at most 64 characters; trimmed and lower-cased.' }),
    source: t.string({ description: 'Where it came from.' }),
    kind: t.field({ type: EntryKindEnum, defaultValue: 'SEMANTIC', description: 'What kind of memory it is.' }),
    status: t.field({ type: EntryStatusEnum, defaultValue: 'ACTIVE', description: 'Initial status.' }),
    volatility: t.field({
      type: VolatilityEnum,
      description: 'How fast it goes out of date; without it, EVOLVING (volatility source `default`).',
    }),
    importance: t.float({ defaultValue: 0.5, description: 'Importance from 0 to 1.' }),
    claimTag: t.field({ type: ClaimTagEnum, defaultValue: 'UNKNOWN', description: 'How well it is supported.' }),
    evidenceRef: t.string({ description: 'A pointer to the evidence.' }),
    observedAt: t.field({ type: 'DateTime', description: 'When it happened in the world.' }),
    replaces: t.id({ description: 'An entry this one replaces: it becomes SUPERSEDED with a SUPERSEDES edge to it.' }),
    classify: t.field({
      type: [ClassificationFieldEnum],
      description:
        'Fields the LLM binding (SPHERE_LLM) proposes after the capture is stored: until it answers they hold the values given here or their defaults. An omitted volatility is always proposed while the binding is on. Ignored while it is off.',
    }),
  }),
});

type CaptureArg = Omit<CaptureInput, 'replaces'> & {
  replaces?: string | number | null;
  classify?: readonly ClassificationField[] | null;
};

/** The capture as the domain takes it: ids are strings there. */
function captureOf({ classify: _, ...input }: CaptureArg): CaptureInput {
  return { ...input, replaces: input.replaces == null ? null : String(input.replaces) };
}

/** The fields the LLM binding is asked for: those named, and volatility whenever it was left out. */
function fieldsToClassify(input: CaptureArg): ClassificationField[] {
  const asked = new Set(input.classify ?? []);
  if (input.volatility == null) asked.add('VOLATILITY');
  return CLASSIFICATION_FIELDS.filter((f) => asked.has(f));
}

builder.queryType({ description: 'Reads of the caller’s workspace.' });
builder.mutationType({
  description: 'Writes to the caller’s workspace; each commits with its event before it is acknowledged.',
});

builder.queryFields((t) => ({
  entry: t.field({
    type: EntryRef,
    nullable: true,
    description: 'One entry by id, or null when the workspace has no such entry.',
    args: { id: t.arg.id({ required: true, description: 'Entry id.' }) },
    resolve: (_r, args, ctx) => {
      readDb(ctx);
      return ctx.loaders.entry.load(String(args.id));
    },
  }),
  recent: t.field({
    type: [EntryRef],
    description: 'The newest entries by creation time, ties in reverse insertion order.',
    args: {
      n: t.arg.int({ defaultValue: READ_DEFAULTS.recent.n, description: 'How many, 1 to 200.' }),
      tag: t.arg.string({ description: 'Only entries with this tag.' }),
    },
    resolve: (_r, args, ctx, info) => {
      // Only the columns the selected fields read, when every one is known (see graphView).
      const fields = selectedFields(info, []);
      const columns = fields === null ? [] : columnsFor(ENTRY_FIELD_COLUMNS, fields);
      return recentEntries(readDb(ctx), args.n ?? READ_DEFAULTS.recent.n, args.tag, { columns });
    },
  }),
  connections: t.field({
    type: [NeighborRef],
    nullable: true,
    description:
      'The edges touching an entry, heaviest first: the first `first`; null, with a NOT_FOUND error at this field, when the workspace has no such entry.',
    args: {
      id: t.arg.id({ required: true, description: 'Entry id.' }),
      first: t.arg.int(CONNECTIONS_FIRST),
      after: t.arg.string(CONNECTIONS_AFTER),
    },
    resolve: async (_r, args, ctx) => {
      const page = connectionsPage({ first: args.first, after: args.after });
      const entry = await requireEntry(readDb(ctx), String(args.id));
      return connectionsOf(entry.id, await ctx.loaders.connections.load({ entryId: entry.id, page }), page);
    },
  }),
  count: t.int({
    description: 'How many entries match all the given filters.',
    args: {
      kind: t.arg({ type: EntryKindEnum, description: 'Only this kind.' }),
      status: t.arg({ type: EntryStatusEnum, description: 'Only this status.' }),
      tag: t.arg.string({ description: 'Only entries with this tag.' }),
    },
    resolve: (_r, args, ctx) => countEntries(readDb(ctx), args),
  }),
}));

builder.mutationFields((t) => ({
  capture: t.field({
    type: CaptureResultRef,
    nullable: true,
    description:
      'Stores a memory. With `replaces`, the new entry supersedes that one (REPLACED); an entry with the same content is reused instead, gaining any new tags (MERGED) or left as it is (BLOCKED); otherwise STORED.',
    args: { input: t.arg({ type: CaptureInputRef, required: true, description: 'The memory.' }) },
    extensions: checkedFirst((args: { input: CaptureArg }) => checkCaptureInput(captureOf(args.input))),
    resolve: async (_r, { input }, ctx) => {
      const capture = captureOf(input);
      const grows = writeEstimate(capture.content, capture.source, capture.evidenceRef, ...(capture.tags ?? []));
      return runGrowingWrite(ctx, grows, async () => {
        // An inline embedder's vector and look-alikes are found before the write, so the write stays short.
        const plan = ctx.semantic ? await ctx.semantic.planCapture(input.content) : null;
        const write = plan ? semanticCaptureWrite(capture, plan) : captureWrite(capture);
        // With the LLM binding on, the capture queues its entry for the model in its own transaction.
        return ctx.llm ? queuedForModel(write, fieldsToClassify(input)) : write;
      });
    },
  }),
}));
