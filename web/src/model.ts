/**
 * The shapes the dashboard reads, named after what they are on its pages: each is the generated
 * type of the document that fetches it (the client package's generated types of client/src/operations), so a
 * schema or document change surfaces here at compile time. Type-only: the bundle gains no code.
 */

import type {
  BriefQuery,
  EdgeType,
  EntryDetailQuery,
  EntryFieldsFragment,
  EntryKind,
  FeedEventsSubscription,
  GraphViewQuery,
  RecallExplainedQuery,
} from './documents.ts';

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

export type EntrySummary = EntryFieldsFragment;
export type EntryDetail = NonNullable<EntryDetailQuery['entry']>;
export type MemoryEvent = FeedEventsSubscription['events'];
export type RecallResult = RecallExplainedQuery['recall'];
export type RecallHit = RecallResult['hits'][number];
export type GraphViewResult = NonNullable<GraphViewQuery['graphView']>;
export type Brief = BriefQuery['brief'];
export type CountBy = Brief['stats']['byKind'][number];
