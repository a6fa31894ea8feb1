/** The shapes the dashboard reads (CONTRACT §4); the enums come from the server's own module. */

import type { CaptureOutcome, EdgeType, EntryKind, EntryStatus, MemoryEventType } from '../../src/contract/enums.ts';

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

export interface EntrySummary {
  id: string;
  content: string;
  kind: EntryKind;
  status: EntryStatus;
  volatility: string;
  freshness: string;
  importance: number;
  claimTag: string;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}

export interface Edge {
  src: string;
  dst: string;
  type: EdgeType;
  weight: number;
  provenance: string;
  metadata?: unknown;
  createdAt?: string;
}

export interface Neighbor {
  direction: 'OUT' | 'IN' | 'BOTH';
  edge: Edge;
  entry: Pick<EntrySummary, 'id' | 'content' | 'kind' | 'status' | 'freshness'>;
}

export interface EntryDetail extends EntrySummary {
  source: string | null;
  evidenceRef: string | null;
  recallCount: number;
  contentHash: string;
  observedAt: string | null;
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

export interface RecallHit {
  rank: number;
  score: number;
  snippet: string;
  truncated: boolean;
  arms: string[];
  hop: number | null;
  via: Pick<Edge, 'src' | 'dst' | 'type' | 'weight'> | null;
  explain: ScoreExplain;
  entry: EntrySummary;
}

export interface RecallResult {
  query: string;
  queryUsed: string;
  timeRange: { from: string | null; to: string | null; phrase: string } | null;
  candidates: number;
  usedChars: number;
  budgetChars: number | null;
  policyVersion: string;
  omitted: { entryId: string; reason: string }[];
  hits: RecallHit[];
}

export interface GraphViewResult {
  truncated: boolean;
  nodes: {
    hop: number;
    score: number;
    entry: Pick<EntrySummary, 'id' | 'content' | 'kind' | 'status' | 'freshness'>;
  }[];
  edges: Edge[];
}

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
