import { GRAPH_WALK, READ_DEFAULTS } from '../../contract/policy.ts';
import { edgeSnapshot } from '../../db/mappers.ts';
import { type RecallHitResult, type RecallOutput, recallEntries } from '../../retrieval/pipeline.ts';
import { builder } from '../builder.ts';
import { readDb } from '../guards.ts';
import { CUT_CONTENT } from '../loaders.ts';
import { EdgeRef } from './edge.ts';
import { EntryRef } from './entry.ts';
import { ClaimTagEnum, EntryKindEnum, EntryStatusEnum, RecallArmEnum, VolatilityEnum } from './enums.ts';
import { VALUE } from './node.ts';

type Explain = RecallHitResult['explain'];

const ScoreExplainRef = builder.objectRef<Explain>('ScoreExplain').implement({
  description: `The parts of a recall hit’s score. ${VALUE}`,
  fields: (t) => ({
    keywordRank: t.exposeInt('keywordRank', {
      nullable: true,
      description: 'Rank in the keyword (BM25) arm, 1-based.',
    }),
    bm25: t.exposeFloat('bm25', { nullable: true, description: 'BM25 relevance (higher is better).' }),
    graphScore: t.exposeFloat('graphScore', {
      nullable: true,
      description: `Graph arm score: seed × ${GRAPH_WALK.decayPerHop}^hop × edge weight.`,
    }),
    vectorRank: t.exposeInt('vectorRank', {
      nullable: true,
      description: 'Rank in the vector arm (embeddings on; null when the arm did not rank it).',
    }),
    cosine: t.exposeFloat('cosine', {
      nullable: true,
      description:
        'Cosine similarity of the entry’s vector to the query’s; null when embeddings are off or the entry has no vector yet.',
    }),
    rrf: t.exposeFloat('rrf', { description: 'Reciprocal rank fusion score (k = 60) over the arms.' }),
    decay: t.exposeFloat('decay', { description: 'Time decay factor by volatility, with its floor.' }),
    recallBoost: t.exposeFloat('recallBoost', { description: 'Boost from how often it was recalled before.' }),
    importance: t.exposeFloat('importance', { description: 'Importance factor, 0.5 + importance.' }),
    tagOverlap: t.exposeFloat('tagOverlap', { description: 'Factor from tags shared with the query.' }),
    match: t.exposeFloat('match', {
      description: 'Keyword strength relative to the best hit, smoothed by linked neighbours’ strength.',
    }),
    coverage: t.exposeFloat('coverage', {
      description: 'Factor from the share of query terms the entry (and, half-weighted, its neighbours) contains.',
    }),
    final: t.exposeFloat('final', {
      description:
        'The score: rrf × match × coverage × decay × recallBoost × importance × tagOverlap (× 0.5 if superseded).',
    }),
  }),
});

export const RecallHitRef = builder.objectRef<RecallHitResult>('RecallHit').implement({
  description: `One recalled entry, with why and how it was found. ${VALUE}`,
  fields: (t) => ({
    entry: t.field({ type: EntryRef, description: 'The entry.', resolve: (h) => h.entry }),
    rank: t.exposeInt('rank', { description: 'Final position, 1-based, after diversity (MMR).' }),
    score: t.exposeFloat('score', { description: 'Relevance before diversity; equals explain.final.' }),
    snippet: t.exposeString('snippet', { description: 'The content, or a window of it around the matched terms.' }),
    truncated: t.exposeBoolean('truncated', { description: 'True when the snippet is shorter than the content.' }),
    arms: t.field({ type: [RecallArmEnum], description: 'The arms that found it.', resolve: (h) => h.arms }),
    hop: t.exposeInt('hop', {
      nullable: true,
      description: 'Edges from the nearest keyword seed, when the graph arm found it.',
    }),
    via: t.field({
      type: EdgeRef,
      nullable: true,
      description: 'The edge the graph arm reached it by.',
      resolve: (h) => (h.via ? edgeSnapshot(h.via) : null),
    }),
    explain: t.field({ type: ScoreExplainRef, description: 'The score’s parts.', resolve: (h) => h.explain }),
  }),
});

const TimeRangeRef = builder.objectRef<NonNullable<RecallOutput['timeRange']>>('TimeRange').implement({
  description: `A time range read from the query; \`to\` is exclusive. ${VALUE}`,
  fields: (t) => ({
    from: t.field({ type: 'DateTime', nullable: true, description: 'Start, inclusive.', resolve: (r) => r.from }),
    to: t.field({ type: 'DateTime', nullable: true, description: 'End, exclusive.', resolve: (r) => r.to }),
    phrase: t.exposeString('phrase', { description: 'The phrase it came from.' }),
  }),
});

const RecallOmissionRef = builder.objectRef<RecallOutput['omitted'][number]>('RecallOmission').implement({
  description: `A candidate recall dropped, and why. ${VALUE}`,
  fields: (t) => ({
    entryId: t.exposeID('entryId', { description: 'The dropped entry.' }),
    reason: t.exposeString('reason', { description: 'Why it was dropped.' }),
  }),
});

const VectorArmRef = builder.objectRef<NonNullable<RecallOutput['vectorArm']>>('VectorArmStatus').implement({
  description: `What the vector arm of a recall did (embeddings on). ${VALUE}`,
  fields: (t) => ({
    model: t.exposeString('model', { description: 'The embedding model.' }),
    searched: t.exposeInt('searched', { description: 'Vectors searched (after the prefilter when it narrows).' }),
    withoutVector: t.exposeInt('withoutVector', {
      description: 'Candidates with no vector yet (embedding pending): ranked by the other arms only.',
    }),
    skipped: t.exposeString('skipped', {
      nullable: true,
      description: 'Why the arm did not run (the embedder failed): recall fell back to keyword and graph.',
    }),
  }),
});

const RecallResultRef = builder.objectRef<RecallOutput>('RecallResult').implement({
  description: `Ranked memories for a plain-language query, within a character budget. ${VALUE}`,
  fields: (t) => ({
    query: t.exposeString('query', { description: 'The query as given.' }),
    queryUsed: t.exposeString('queryUsed', { description: 'The query with its time phrase removed.' }),
    timeRange: t.field({
      type: TimeRangeRef,
      nullable: true,
      description: 'The time range read from the query.',
      resolve: (r) => r.timeRange,
    }),
    hits: t.field({ type: [RecallHitRef], description: 'The hits in rank order.', resolve: (r) => r.hits }),
    candidates: t.exposeInt('candidates', { description: 'Distinct candidates considered after fusion.' }),
    usedChars: t.exposeInt('usedChars', { description: 'Sum of the snippets’ lengths.' }),
    budgetChars: t.exposeInt('budgetChars', {
      nullable: true,
      description: 'The snippet budget (12,000), or null with full.',
    }),
    omitted: t.field({
      type: [RecallOmissionRef],
      description: 'Up to 50 dropped candidates, best first.',
      resolve: (r) => r.omitted,
    }),
    policyVersion: t.exposeString('policyVersion', { description: 'The ranking policy that scored this result.' }),
    vectorArm: t.field({
      type: VectorArmRef,
      nullable: true,
      description: 'The vector arm’s part; null when embeddings are off (SPHERE_EMBEDDINGS).',
      resolve: (r) => r.vectorArm,
    }),
  }),
});

type InputFields = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

/**
 * The fields of recall's prefilter, shared by RecallFilter and the entries listing's
 * EntryFilter; only the statuses' default differs between them.
 */
export const prefilterFields = (t: InputFields, statusesDescription: string) => ({
  kinds: t.field({ type: [EntryKindEnum], description: 'Only these kinds.' }),
  statuses: t.field({ type: [EntryStatusEnum], description: statusesDescription }),
  volatilities: t.field({ type: [VolatilityEnum], description: 'Only these volatilities.' }),
  claimTags: t.field({ type: [ClaimTagEnum], description: 'Only these claim tags.' }),
  tags: t.stringList({ description: 'Entries must carry all of these tags (at most 32).' }),
  since: t.field({ type: 'DateTime', description: 'Happened (or was stored) at or after this instant.' }),
  until: t.field({ type: 'DateTime', description: 'Happened (or was stored) before this instant.' }),
  minImportance: t.float({ description: 'Importance at least this (0 to 1).' }),
  maxImportance: t.float({ description: 'Importance at most this (0 to 1).' }),
});

const RecallFilterRef = builder.inputType('RecallFilter', {
  description: 'Filters applied before ranking; an entry must pass all of them.',
  fields: (t) => prefilterFields(t, 'Only these statuses (default: all but DEPRECATED).'),
});

builder.queryFields((t) => ({
  recall: t.field({
    type: RecallResultRef,
    description:
      'Ranked recall: time phrases in the query become a range; a keyword (BM25) arm and a graph walk from its top hits are fused (RRF), reranked by freshness, recall count, importance and tags, diversified (MMR) and cut to a 12,000-character snippet budget.',
    args: {
      query: t.arg.string({
        required: true,
        description: 'Plain words, 1 to 1,000 characters; time phrases become a range.',
      }),
      topK: t.arg.int({ defaultValue: READ_DEFAULTS.recall.topK, description: 'How many hits, 1 to 50.' }),
      hops: t.arg.int({
        defaultValue: READ_DEFAULTS.recall.hops,
        description: 'Graph hops from keyword hits, 0 to 3.',
      }),
      full: t.arg.boolean({ defaultValue: false, description: 'Return whole contents, bypassing snippet budgets.' }),
      tag: t.arg.string({ description: 'Only entries with this tag.' }),
      kind: t.arg({ type: EntryKindEnum, description: 'Only entries of this kind.' }),
      filter: t.arg({ type: RecallFilterRef, description: 'More filters, applied before ranking.' }),
      asOf: t.arg({ type: 'DateTime', description: 'Anchor for relative time phrases and time decay (default now).' }),
      countRecall: t.arg.boolean({
        defaultValue: true,
        description:
          "Add 1 to each hit's recallCount, which lifts it a little in later recalls. false leaves the counts as they were: for previews, dashboards and evaluations whose questions should not rank each other's answers.",
      }),
    },
    resolve: async (_r, { countRecall, ...args }, ctx) => {
      const input = {
        ...args,
        topK: args.topK ?? undefined,
        hops: args.hops ?? undefined,
        full: args.full ?? undefined,
      };
      const db = readDb(ctx);
      const semantic = ctx.semantic;
      const vectors = semantic && {
        model: semantic.embedder.model,
        mmrFloor: semantic.embedder.thresholds.mmrFloor,
        embedQuery: async (text: string) => (await semantic.embedder.embed(db, [text], 'query')).vectors[0]!,
        vectors: () => semantic.vectors(),
      };
      const result = await recallEntries(db, input, new Date(ctx.now()), vectors);
      // recall_count + 1 for what was returned, written shortly after through the writer.
      if (countRecall !== false) ctx.workspace.bookkeeper.recalled(result.hits.map((h) => h.entry.id));
      // The hits' fields read what recall already read with them (one snapshot, no more statements).
      for (const hit of result.hits) {
        if (hit.contentCut) CUT_CONTENT.add(hit.entry);
        else ctx.loaders.entry.prime(hit.entry.id, hit.entry);
        ctx.loaders.tags.prime(hit.entry.id, hit.tags);
        ctx.loaders.superseded.prime(hit.entry.id, hit.superseded);
      }
      return result;
    },
  }),
}));
