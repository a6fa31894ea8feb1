/**
 * The shapes the dashboard reads (CONTRACT §4), derived from the typed client's generated types so a
 * schema change surfaces here at compile time. Type-only imports: the browser bundle gains no code.
 */

import type {
  CaptureOutcome,
  EdgeFieldsFragment,
  EdgeType,
  EntryFieldsFragment,
  EntryKind,
  GraphViewQuery,
  MemoryEventType,
  RecallQuery,
} from '../../client/src/generated/graphql.ts';

/** Edge colours, shared by the graph, its legend and edge chips elsewhere. */
export const EDGE_COLORS: Record<EdgeType, string> = {
  RELATES_TO: '#64748b',
  SUPERSEDES: '#dc2626',
  CAUSED_BY: '#ea580c',
  DECIDED: '#7c3aed',
  ABOUT_PERSON: '#db2777',
  PART_OF_PROJECT: '#2563eb',
  FOLLOWS: '#0d9488',
  DOCUMENT_OF: '#65a30d',
};

export const KIND_COLORS: Record<EntryKind, string> = {
  EPISODIC: '#0ea5e9',
  SEMANTIC: '#6366f1',
  PROCEDURAL: '#14b8a6',
  PERSON: '#f43f5e',
  PROJECT: '#f59e0b',
  DOCUMENT: '#84cc16',
};

export type EntrySummary = Pick<
  EntryFieldsFragment,
  | 'id'
  | 'content'
  | 'kind'
  | 'status'
  | 'volatility'
  | 'freshness'
  | 'importance'
  | 'claimTag'
  | 'tags'
  | 'createdAt'
  | 'updatedAt'
>;

/** The graph view asks for no metadata or timestamps; entry connections ask for both. */
export type Edge = Pick<EdgeFieldsFragment, 'src' | 'dst' | 'type' | 'weight' | 'provenance'> &
  Partial<Pick<EdgeFieldsFragment, 'metadata' | 'createdAt'>>;

export interface Neighbor {
  direction: 'OUT' | 'IN' | 'BOTH';
  edge: Edge;
  entry: Pick<EntrySummary, 'id' | 'content' | 'kind' | 'status' | 'freshness'>;
}

export interface EntryDetail extends EntrySummary, Pick<EntryFieldsFragment, 'source' | 'evidenceRef' | 'observedAt'> {
  recallCount: number;
  contentHash: string;
  revisions: { content: string; op: 'APPEND' | 'UPDATE'; at: string }[];
  connections: Neighbor[];
}

export interface MemoryEvent {
  seq: number;
  type: MemoryEventType;
  at: string;
  entryId: string | null;
  outcome: CaptureOutcome | null;
  entry: Pick<EntrySummary, 'id' | 'content' | 'kind' | 'status' | 'tags'> | null;
  edge: Pick<Edge, 'src' | 'dst' | 'type' | 'weight'> | null;
}

export interface ScoreExplain {
  keywordRank: number | null;
  bm25: number | null;
  graphScore: number | null;
  vectorRank: number | null;
  rrf: number;
  decay: number;
  recallBoost: number;
  importance: number;
  tagOverlap: number;
  final: number;
}

type GeneratedRecall = RecallQuery['recall'];
type GeneratedGraphView = NonNullable<GraphViewQuery['graphView']>;

/** The dashboard also reads the scoring breakdown and the edge a graph hit came by. */
export type RecallHit = Pick<
  GeneratedRecall['hits'][number],
  'rank' | 'score' | 'snippet' | 'truncated' | 'arms' | 'hop'
> & {
  via: Pick<Edge, 'src' | 'dst' | 'type' | 'weight'> | null;
  explain: ScoreExplain;
  entry: EntrySummary;
};

export type RecallResult = Pick<GeneratedRecall, 'query' | 'queryUsed' | 'candidates' | 'usedChars' | 'budgetChars'> & {
  timeRange: { from: string | null; to: string | null; phrase: string } | null;
  policyVersion: string;
  omitted: { entryId: string; reason: string }[];
  hits: RecallHit[];
};

export type GraphViewResult = Pick<GeneratedGraphView, 'truncated'> & {
  nodes: (Pick<GeneratedGraphView['nodes'][number], 'hop' | 'score'> & {
    entry: Pick<EntrySummary, 'id' | 'content' | 'kind' | 'status' | 'freshness'>;
  })[];
  edges: Edge[];
};

export interface CountBy {
  key: string;
  count: number;
}

export interface Stats {
  entries: number;
  edges: number;
  tags: number;
  revisions: number;
  byKind: CountBy[];
  byStatus: CountBy[];
  byVolatility: CountBy[];
  byClaimTag: CountBy[];
  edgesByType: CountBy[];
  oldestAt: string | null;
  newestAt: string | null;
}

export interface Brief {
  text: string;
  stats: Stats;
  recent: EntrySummary[];
  important: EntrySummary[];
  stale: EntrySummary[];
  topTags: { tag: string; count: number }[];
}
