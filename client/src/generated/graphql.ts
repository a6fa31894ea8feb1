/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** Text to add to the end of an entry. */
export type AppendInput = {
  /** The text to append. */
  addition: string;
  /** Entry id. */
  id: string | number;
};

/** A memory to store, classified by the writer. */
export type CaptureInput = {
  /** How well it is supported. */
  claimTag?: ClaimTag | null | undefined;
  /** Fields the LLM binding (SPHERE_LLM) proposes after the capture is stored: until it answers they hold the values given here or their defaults. An omitted volatility is always proposed while the binding is on. Ignored while it is off. */
  classify?: Array<ClassificationField> | null | undefined;
  /** The memory text, 1 to 100,000 characters after trimming. */
  content: string;
  /** A pointer to the evidence. */
  evidenceRef?: string | null | undefined;
  /** Importance from 0 to 1. */
  importance?: number | null | undefined;
  /** What kind of memory it is. */
  kind?: EntryKind | null | undefined;
  /** When it happened in the world. */
  observedAt?: string | null | undefined;
  /** An entry this one replaces: it becomes SUPERSEDED with a SUPERSEDES edge to it. */
  replaces?: string | number | null | undefined;
  /** Where it came from. */
  source?: string | null | undefined;
  /** Initial status. */
  status?: EntryStatus | null | undefined;
  /** Up to 32 tags of at most 64 characters; trimmed and lower-cased. */
  tags?: Array<string> | null | undefined;
  /** How fast it goes out of date; without it, EVOLVING (volatility source `default`). */
  volatility?: Volatility | null | undefined;
};

/** What a capture did. */
export type CaptureOutcome =
  /** The same content exists with every given tag; nothing was written. */
  | 'BLOCKED'
  /** The same content exists; the new tags were added to it. */
  | 'MERGED'
  /** A new entry was stored and the replaced one became SUPERSEDED. */
  | 'REPLACED'
  /** A new entry was stored. */
  | 'STORED';

/** How well an entry is supported. */
export type ClaimTag =
  /** Concluded, not checked. */
  | 'INFERRED'
  /** Not known. */
  | 'UNKNOWN'
  /** Checked against evidence. */
  | 'VERIFIED';

/** A field of an entry’s classification. */
export type ClassificationField =
  /** The entry’s importance. */
  | 'IMPORTANCE'
  /** The entry’s kind. */
  | 'KIND'
  /** The entry’s volatility. */
  | 'VOLATILITY';

/** Where a field of an entry’s classification came from. */
export type ClassificationSource =
  /** Given by the writer (the contract’s default when the writer left it out and did not ask the model). */
  | 'CALLER'
  /** The contract’s default: the writer left it to the LLM binding, which has not answered (yet). */
  | 'DEFAULT'
  /** Re-classified by a staleness pass. */
  | 'HEURISTIC'
  /** Proposed by the LLM binding’s model. */
  | 'MODEL';

/** What the LLM binding found between a newer entry and an older one. */
export type ConflictRelation =
  /** Both cannot be true, and the newer entry does not say it replaces the older one. */
  | 'CONTRADICTS'
  /** The newer entry replaces the older one: the older is out of date. */
  | 'UPDATES';

/** Which way an edge runs as seen from an entry. */
export type Direction =
  /** Both ways (symmetric RELATES_TO); as a filter, any direction. */
  | 'BOTH'
  /** From the other entry to this one. */
  | 'IN'
  /** From this entry to the other. */
  | 'OUT';

/** The relation an edge states. RELATES_TO is symmetric; the others point from src to dst. */
export type EdgeType =
  /** src is about a PERSON dst. */
  | 'ABOUT_PERSON'
  /** src was caused by dst (any kinds). */
  | 'CAUSED_BY'
  /** An EPISODIC src decided dst. */
  | 'DECIDED'
  /** A DOCUMENT src documents dst. */
  | 'DOCUMENT_OF'
  /** An EPISODIC src follows an EPISODIC dst in time. */
  | 'FOLLOWS'
  /** src is part of a PROJECT dst. */
  | 'PART_OF_PROJECT'
  /** Related, in no particular direction (symmetric; any kinds). */
  | 'RELATES_TO'
  /** src replaces dst; dst becomes SUPERSEDED. */
  | 'SUPERSEDES';

/** Which entries the listing holds: an entry must pass all of these, as in recall’s filter. */
export type EntryFilter = {
  /** Only these claim tags. */
  claimTags?: Array<ClaimTag> | null | undefined;
  /** Only these kinds. */
  kinds?: Array<EntryKind> | null | undefined;
  /** Importance at most this (0 to 1). */
  maxImportance?: number | null | undefined;
  /** Importance at least this (0 to 1). */
  minImportance?: number | null | undefined;
  /** Happened (or was stored) at or after this instant. */
  since?: string | null | undefined;
  /** Only these statuses (default: every status, DEPRECATED included). */
  statuses?: Array<EntryStatus> | null | undefined;
  /** Entries must carry all of these tags (at most 32). */
  tags?: Array<string> | null | undefined;
  /** Happened (or was stored) before this instant. */
  until?: string | null | undefined;
  /** Only these volatilities. */
  volatilities?: Array<Volatility> | null | undefined;
};

/** What kind of memory an entry is; the writer classifies it. */
export type EntryKind =
  /** A document or a pointer to one. */
  | 'DOCUMENT'
  /** Something that happened: an event, a conversation turn, an observation. */
  | 'EPISODIC'
  /** A person. */
  | 'PERSON'
  /** How to do something. */
  | 'PROCEDURAL'
  /** A project. */
  | 'PROJECT'
  /** A fact or piece of knowledge. */
  | 'SEMANTIC';

/** The order of the entries listing; its cursors are valid in this order only. */
export type EntryOrder = {
  /** Newest first (DESC) or oldest first (ASC). */
  direction?: OrderDirection;
  /** The time to sort by. */
  field?: EntryOrderField;
};

/** What the entries listing sorts by; ties go by insertion order in the same direction. */
export type EntryOrderField =
  /** When the entry was stored; never changes, so a walk sees each entry once. */
  | 'CREATED_AT'
  /** When it happened in the world; entries with no observedAt sort by createdAt, as the since/until filter reads them. */
  | 'OBSERVED_AT'
  /** When the entry last changed; an entry updated during a walk moves and may be seen twice or missed. */
  | 'UPDATED_AT';

/** Where an entry stands in its life. */
export type EntryStatus =
  /** In force. */
  | 'ACTIVE'
  /** In force and authoritative. */
  | 'CANONICAL'
  /** Retired; recall skips it unless asked for. */
  | 'DEPRECATED'
  /** Out of date, to review. */
  | 'STALE'
  /** Replaced by a newer entry. */
  | 'SUPERSEDED';

/** The entry to forget. */
export type ForgetInput = {
  /** Entry id. */
  id: string | number;
};

/** How current an entry is at read time. */
export type Freshness =
  /** Past half of its volatility’s lifetime. */
  | 'AGING'
  /** Within the first half of its volatility’s lifetime. */
  | 'CURRENT'
  /** Marked STALE, or older than its volatility allows. */
  | 'STALE'
  /** Marked SUPERSEDED, or the target of a SUPERSEDES edge. */
  | 'SUPERSEDED';

/** An edge to make or strengthen. */
export type LinkInput = {
  /** Target entry id; must differ from src. */
  dst: string | number;
  /** Free-form metadata; merged key by key into an existing edge. */
  metadata?: unknown;
  /** Who makes it. */
  provenance?: Provenance | null | undefined;
  /** Source entry id. */
  src: string | number;
  /** The relation; some types gate entry kinds. */
  type: EdgeType;
  /** Strength in (0, 1]. */
  weight?: number | null | undefined;
};

/** The kind of committed write an event reports. */
export type MemoryEventType =
  /** Text was appended to an entry. */
  | 'APPENDED'
  /** An entry was stored, merged into, or replaced (see outcome). */
  | 'CAPTURED'
  /** The LLM binding proposed the classification fields a capture asked for (data: model, fields). */
  | 'CLASSIFIED'
  /** The LLM binding found that a new entry updates or contradicts an older one (data: other, relation, reason). */
  | 'CONTRADICTION'
  /** An entry and everything of it was removed. */
  | 'FORGOTTEN'
  /** An export file was imported (`mini-sphere import`); data holds the counts. Entries and edges arrived without events of their own: refetch. */
  | 'IMPORTED'
  /** An edge was made or strengthened. */
  | 'LINKED'
  /** A staleness pass ran. */
  | 'STALENESS_PASS'
  /** An entry’s status changed. */
  | 'STATUS_CHANGED'
  /** An edge was removed. */
  | 'UNLINKED'
  /** An entry’s content was replaced. */
  | 'UPDATED';

/** Which way a listing runs. */
export type OrderDirection =
  /** Oldest first. */
  | 'ASC'
  /** Newest first. */
  | 'DESC';

/** Who made an edge; on re-linking the stronger wins (EXPLICIT > INFERRED > SYSTEM). */
export type Provenance =
  /** Stated by a caller. */
  | 'EXPLICIT'
  /** Inferred by a caller or a process. */
  | 'INFERRED'
  /** Made by Mini-Sphere itself (e.g. by a replacing capture). */
  | 'SYSTEM';

/** A retrieval arm that found a recall hit. */
export type RecallArm =
  /** Edges walked from the keyword hits. */
  | 'GRAPH'
  /** Full-text search (FTS5 BM25). */
  | 'KEYWORD'
  /** Embedding similarity (reserved; not enabled). */
  | 'VECTOR';

/** Filters applied before ranking; an entry must pass all of them. */
export type RecallFilter = {
  /** Only these claim tags. */
  claimTags?: Array<ClaimTag> | null | undefined;
  /** Only these kinds. */
  kinds?: Array<EntryKind> | null | undefined;
  /** Importance at most this (0 to 1). */
  maxImportance?: number | null | undefined;
  /** Importance at least this (0 to 1). */
  minImportance?: number | null | undefined;
  /** Happened (or was stored) at or after this instant. */
  since?: string | null | undefined;
  /** Only these statuses (default: all but DEPRECATED). */
  statuses?: Array<EntryStatus> | null | undefined;
  /** Entries must carry all of these tags (at most 32). */
  tags?: Array<string> | null | undefined;
  /** Happened (or was stored) before this instant. */
  until?: string | null | undefined;
  /** Only these volatilities. */
  volatilities?: Array<Volatility> | null | undefined;
};

/** The write that retired a revision. */
export type RevisionOp =
  /** Text was appended. */
  | 'APPEND'
  /** The content was replaced. */
  | 'UPDATE';

/** A new status for an entry. */
export type SetStatusInput = {
  /** Entry id. */
  id: string | number;
  /** The new status. */
  status: EntryStatus;
};

/** An edge to remove. */
export type UnlinkInput = {
  /** Target entry id. */
  dst: string | number;
  /** Source entry id. */
  src: string | number;
  /** The relation. */
  type: EdgeType;
};

/** New content for an entry. */
export type UpdateInput = {
  /** The new content. */
  content: string;
  /** The `contentHash` of the content this rewrite was made from. When the entry’s content is no longer that (an append or rewrite came in between), nothing is written and the error is CONFLICT, with the current hash in `extensions.contentHash`. Omitted: the content is replaced whatever it is. */
  expectedContentHash?: string | null | undefined;
  /** Entry id. */
  id: string | number;
};

/** How fast an entry goes out of date. */
export type Volatility =
  /** Never goes stale by age. */
  | 'DURABLE'
  /** Stale after 7 days without change. */
  | 'EPHEMERAL'
  /** Stale after 90 days without change. */
  | 'EVOLVING';

export type AppendMutationVariables = Exact<{
  input: AppendInput;
}>;


export type AppendMutation = { __typename: 'Mutation', append: { __typename: 'AppendPayload', entry: { __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } } | null };

export type BriefQueryVariables = Exact<{ [key: string]: never; }>;


export type BriefQuery = { __typename: 'Query', brief: { __typename: 'Brief', workspace: string, text: string, stats: { __typename: 'Stats', workspace: string, entries: number, edges: number, tags: number, revisions: number, oldestAt: string | null, newestAt: string | null, byKind: Array<{ __typename: 'CountBy', key: string, count: number }>, byStatus: Array<{ __typename: 'CountBy', key: string, count: number }>, byVolatility: Array<{ __typename: 'CountBy', key: string, count: number }>, byClaimTag: Array<{ __typename: 'CountBy', key: string, count: number }>, edgesByType: Array<{ __typename: 'CountBy', key: string, count: number }> }, recent: Array<{ __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string }>, important: Array<{ __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string }>, stale: Array<{ __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string }>, topTags: Array<{ __typename: 'TagCount', tag: string, count: number }> } };

export type CaptureMutationVariables = Exact<{
  input: CaptureInput;
}>;


export type CaptureMutation = { __typename: 'Mutation', capture: { __typename: 'CaptureResult', outcome: CaptureOutcome, matchId: string | null, entry: { __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } } | null };

export type EntryFieldsFragment = { __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string };

export type EntriesQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
  filter?: EntryFilter | null | undefined;
  orderBy?: EntryOrder | null | undefined;
}>;


export type EntriesQuery = { __typename: 'Query', entries: { __typename: 'EntryConnection', totalCount: number, pageInfo: { __typename: 'PageInfo', hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null }, edges: Array<{ __typename: 'EntryEdge', cursor: string, node: { __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } }> } };

export type EntryQueryVariables = Exact<{
  id: string | number;
}>;


export type EntryQuery = { __typename: 'Query', entry: { __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } | null };

export type EntryDetailQueryVariables = Exact<{
  id: string | number;
}>;


export type EntryDetailQuery = { __typename: 'Query', entry: { __typename: 'Entry', recallCount: number, contentHash: string, id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string, classification: { __typename: 'Classification', kind: ClassificationSource, volatility: ClassificationSource, importance: ClassificationSource, model: string | null }, conflicts: Array<{ __typename: 'Conflict', newer: boolean, relation: ConflictRelation, reason: string, confidence: number | null, model: string, at: string, entry: { __typename: 'Entry', id: string, content: string } | null }>, revisions: Array<{ __typename: 'Revision', id: string, content: string, op: RevisionOp, at: string }>, connections: Array<{ __typename: 'Neighbor', direction: Direction, edge: { __typename: 'Edge', id: string, src: string, dst: string, type: EdgeType, weight: number, provenance: Provenance, metadata: unknown, createdAt: string, updatedAt: string }, entry: { __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, freshness: Freshness } }> } | null };

export type EventsSubscriptionVariables = Exact<{
  sinceSeq?: number | null | undefined;
  types?: Array<MemoryEventType> | MemoryEventType | null | undefined;
}>;


export type EventsSubscription = { events: { __typename: 'MemoryEvent', seq: number, type: MemoryEventType, at: string, entryId: string | null, outcome: CaptureOutcome | null, data: unknown } };

export type FeedEventsSubscriptionVariables = Exact<{
  sinceSeq?: number | null | undefined;
  types?: Array<MemoryEventType> | MemoryEventType | null | undefined;
}>;


export type FeedEventsSubscription = { events: { __typename: 'MemoryEvent', seq: number, type: MemoryEventType, at: string, entryId: string | null, outcome: CaptureOutcome | null, entry: { __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, tags: Array<string> } | null, edge: { __typename: 'Edge', id: string, src: string, dst: string, type: EdgeType, weight: number } | null } };

export type ForgetMutationVariables = Exact<{
  input: ForgetInput;
}>;


export type ForgetMutation = { __typename: 'Mutation', forget: { __typename: 'ForgetPayload', forgotten: boolean, forgottenId: string } | null };

export type GraphViewQueryVariables = Exact<{
  seedIds: Array<string | number> | string | number;
  hops?: number | null | undefined;
}>;


export type GraphViewQuery = { __typename: 'Query', graphView: { __typename: 'GraphView', truncated: boolean, nodes: Array<{ __typename: 'GraphNode', hop: number, score: number, entry: { __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } }>, edges: Array<{ __typename: 'Edge', id: string, src: string, dst: string, type: EdgeType, weight: number, provenance: Provenance, metadata: unknown, createdAt: string, updatedAt: string }> } | null };

export type LastEventSeqQueryVariables = Exact<{ [key: string]: never; }>;


export type LastEventSeqQuery = { __typename: 'Query', lastEventSeq: number, stats: { __typename: 'Stats', workspace: string } };

export type LinkMutationVariables = Exact<{
  input: LinkInput;
}>;


export type LinkMutation = { __typename: 'Mutation', link: { __typename: 'LinkPayload', edge: { __typename: 'Edge', id: string, src: string, dst: string, type: EdgeType, weight: number, provenance: Provenance, metadata: unknown, createdAt: string, updatedAt: string } } | null };

export type EdgeFieldsFragment = { __typename: 'Edge', id: string, src: string, dst: string, type: EdgeType, weight: number, provenance: Provenance, metadata: unknown, createdAt: string, updatedAt: string };

export type RecallQueryVariables = Exact<{
  query: string;
  topK?: number | null | undefined;
  hops?: number | null | undefined;
  tag?: string | null | undefined;
  kind?: EntryKind | null | undefined;
  filter?: RecallFilter | null | undefined;
  asOf?: string | null | undefined;
  full?: boolean | null | undefined;
}>;


export type RecallQuery = { __typename: 'Query', recall: { __typename: 'RecallResult', query: string, queryUsed: string, candidates: number, usedChars: number, budgetChars: number | null, hits: Array<{ __typename: 'RecallHit', rank: number, score: number, snippet: string, truncated: boolean, hop: number | null, arms: Array<RecallArm>, entry: { __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } }> } };

export type RecallExplainedQueryVariables = Exact<{
  query: string;
  topK?: number | null | undefined;
  hops?: number | null | undefined;
  tag?: string | null | undefined;
  kind?: EntryKind | null | undefined;
  filter?: RecallFilter | null | undefined;
  asOf?: string | null | undefined;
  full?: boolean | null | undefined;
}>;


export type RecallExplainedQuery = { __typename: 'Query', recall: { __typename: 'RecallResult', query: string, queryUsed: string, candidates: number, usedChars: number, budgetChars: number | null, policyVersion: string, timeRange: { __typename: 'TimeRange', from: string | null, to: string | null, phrase: string } | null, omitted: Array<{ __typename: 'RecallOmission', entryId: string, reason: string }>, hits: Array<{ __typename: 'RecallHit', rank: number, score: number, snippet: string, truncated: boolean, hop: number | null, arms: Array<RecallArm>, via: { __typename: 'Edge', id: string, src: string, dst: string, type: EdgeType, weight: number } | null, explain: { __typename: 'ScoreExplain', keywordRank: number | null, bm25: number | null, graphScore: number | null, vectorRank: number | null, rrf: number, decay: number, recallBoost: number, importance: number, tagOverlap: number, final: number }, entry: { __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } }> } };

export type RecentEntriesQueryVariables = Exact<{
  n?: number | null | undefined;
}>;


export type RecentEntriesQuery = { __typename: 'Query', recent: Array<{ __typename: 'Entry', id: string, content: string, kind: EntryKind }> };

export type SetStatusMutationVariables = Exact<{
  input: SetStatusInput;
}>;


export type SetStatusMutation = { __typename: 'Mutation', setStatus: { __typename: 'SetStatusPayload', entry: { __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } } | null };

export type UnlinkMutationVariables = Exact<{
  input: UnlinkInput;
}>;


export type UnlinkMutation = { __typename: 'Mutation', unlink: { __typename: 'UnlinkPayload', removedEdgeId: string | null, source: { __typename: 'Entry', id: string }, target: { __typename: 'Entry', id: string } } | null };

export type UpdateMutationVariables = Exact<{
  input: UpdateInput;
}>;


export type UpdateMutation = { __typename: 'Mutation', update: { __typename: 'UpdatePayload', entry: { __typename: 'Entry', id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } } | null };

export const EntryFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"claimTag"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"volatility"}},{"kind":"Field","name":{"kind":"Name","value":"freshness"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"evidenceRef"}},{"kind":"Field","name":{"kind":"Name","value":"observedAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<EntryFieldsFragment, unknown>;
export const EdgeFieldsFragmentDoc = {"kind":"Document","definitions":[{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EdgeFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Edge"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"src"}},{"kind":"Field","name":{"kind":"Name","value":"dst"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"weight"}},{"kind":"Field","name":{"kind":"Name","value":"provenance"}},{"kind":"Field","name":{"kind":"Name","value":"metadata"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<EdgeFieldsFragment, unknown>;
export const AppendDocument = {"__meta__":{"hash":"d9ec8cea42ef3dbcca256e4ccdce1e0cb5550a3578dd17833e78223668fadae9"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"Append"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"AppendInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"append"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EntryFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"claimTag"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"volatility"}},{"kind":"Field","name":{"kind":"Name","value":"freshness"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"evidenceRef"}},{"kind":"Field","name":{"kind":"Name","value":"observedAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<AppendMutation, AppendMutationVariables>;
export const BriefDocument = {"__meta__":{"hash":"79224acca28e9ebac65ed6deeedd1e2d510ea670da885b095629be8983766657"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Brief"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"brief"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"workspace"}},{"kind":"Field","name":{"kind":"Name","value":"text"}},{"kind":"Field","name":{"kind":"Name","value":"stats"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"workspace"}},{"kind":"Field","name":{"kind":"Name","value":"entries"}},{"kind":"Field","name":{"kind":"Name","value":"edges"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"revisions"}},{"kind":"Field","name":{"kind":"Name","value":"oldestAt"}},{"kind":"Field","name":{"kind":"Name","value":"newestAt"}},{"kind":"Field","name":{"kind":"Name","value":"byKind"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"count"}}]}},{"kind":"Field","name":{"kind":"Name","value":"byStatus"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"count"}}]}},{"kind":"Field","name":{"kind":"Name","value":"byVolatility"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"count"}}]}},{"kind":"Field","name":{"kind":"Name","value":"byClaimTag"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"count"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edgesByType"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"key"}},{"kind":"Field","name":{"kind":"Name","value":"count"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"recent"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EntryFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"important"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EntryFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"stale"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EntryFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"topTags"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"tag"}},{"kind":"Field","name":{"kind":"Name","value":"count"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"claimTag"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"volatility"}},{"kind":"Field","name":{"kind":"Name","value":"freshness"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"evidenceRef"}},{"kind":"Field","name":{"kind":"Name","value":"observedAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<BriefQuery, BriefQueryVariables>;
export const CaptureDocument = {"__meta__":{"hash":"fe87fa1460bb4c32d8fadeb702fe172cf9302b90352592b64e13083704a70ada"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"Capture"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CaptureInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"capture"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}},{"kind":"Field","name":{"kind":"Name","value":"matchId"}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EntryFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"claimTag"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"volatility"}},{"kind":"Field","name":{"kind":"Name","value":"freshness"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"evidenceRef"}},{"kind":"Field","name":{"kind":"Name","value":"observedAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<CaptureMutation, CaptureMutationVariables>;
export const EntriesDocument = {"__meta__":{"hash":"e5cf1852e090fcbbcdcadab1d3fd71597a1c9b1ebb5635e1c8d76351f0ba61c5"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Entries"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"last"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"before"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"filter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"EntryFilter"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"orderBy"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"EntryOrder"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entries"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}},{"kind":"Argument","name":{"kind":"Name","value":"last"},"value":{"kind":"Variable","name":{"kind":"Name","value":"last"}}},{"kind":"Argument","name":{"kind":"Name","value":"before"},"value":{"kind":"Variable","name":{"kind":"Name","value":"before"}}},{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"filter"}}},{"kind":"Argument","name":{"kind":"Name","value":"orderBy"},"value":{"kind":"Variable","name":{"kind":"Name","value":"orderBy"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"hasPreviousPage"}},{"kind":"Field","name":{"kind":"Name","value":"startCursor"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EntryFields"}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"claimTag"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"volatility"}},{"kind":"Field","name":{"kind":"Name","value":"freshness"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"evidenceRef"}},{"kind":"Field","name":{"kind":"Name","value":"observedAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<EntriesQuery, EntriesQueryVariables>;
export const EntryDocument = {"__meta__":{"hash":"2eef060760fb0f6fe7b181adbf5788b5ddc988aebd1549bd71ab8c8e3b0d13fd"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Entry"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EntryFields"}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"claimTag"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"volatility"}},{"kind":"Field","name":{"kind":"Name","value":"freshness"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"evidenceRef"}},{"kind":"Field","name":{"kind":"Name","value":"observedAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<EntryQuery, EntryQueryVariables>;
export const EntryDetailDocument = {"__meta__":{"hash":"a3f2d715cefad8de9b0a131e5a8352c0fe0348c7f12c1fe7e56cfee450c7e875"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"EntryDetail"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EntryFields"}},{"kind":"Field","name":{"kind":"Name","value":"recallCount"}},{"kind":"Field","name":{"kind":"Name","value":"contentHash"}},{"kind":"Field","name":{"kind":"Name","value":"classification"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"volatility"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"model"}}]}},{"kind":"Field","name":{"kind":"Name","value":"conflicts"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}}]}},{"kind":"Field","name":{"kind":"Name","value":"newer"}},{"kind":"Field","name":{"kind":"Name","value":"relation"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}},{"kind":"Field","name":{"kind":"Name","value":"confidence"}},{"kind":"Field","name":{"kind":"Name","value":"model"}},{"kind":"Field","name":{"kind":"Name","value":"at"}}]}},{"kind":"Field","name":{"kind":"Name","value":"revisions"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"op"}},{"kind":"Field","name":{"kind":"Name","value":"at"}}]}},{"kind":"Field","name":{"kind":"Name","value":"connections"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"direction"}},{"kind":"Field","name":{"kind":"Name","value":"edge"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EdgeFields"}}]}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"freshness"}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"claimTag"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"volatility"}},{"kind":"Field","name":{"kind":"Name","value":"freshness"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"evidenceRef"}},{"kind":"Field","name":{"kind":"Name","value":"observedAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EdgeFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Edge"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"src"}},{"kind":"Field","name":{"kind":"Name","value":"dst"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"weight"}},{"kind":"Field","name":{"kind":"Name","value":"provenance"}},{"kind":"Field","name":{"kind":"Name","value":"metadata"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<EntryDetailQuery, EntryDetailQueryVariables>;
export const EventsDocument = {"__meta__":{"hash":"b39d258d8d1395b4eb45e59cf55c27aaaffbd12f68d9fc932b19802a20fce221"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"Events"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sinceSeq"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"types"}},"type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"MemoryEventType"}}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"events"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sinceSeq"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sinceSeq"}}},{"kind":"Argument","name":{"kind":"Name","value":"types"},"value":{"kind":"Variable","name":{"kind":"Name","value":"types"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"entryId"}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}},{"kind":"Field","name":{"kind":"Name","value":"data"}}]}}]}}]} as unknown as DocumentNode<EventsSubscription, EventsSubscriptionVariables>;
export const FeedEventsDocument = {"__meta__":{"hash":"f20a413de0fe4431bc0a0b7a951be356746710565911eddb899f897c8d92d4d0"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"FeedEvents"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"sinceSeq"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"types"}},"type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"MemoryEventType"}}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"events"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"sinceSeq"},"value":{"kind":"Variable","name":{"kind":"Name","value":"sinceSeq"}}},{"kind":"Argument","name":{"kind":"Name","value":"types"},"value":{"kind":"Variable","name":{"kind":"Name","value":"types"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"seq"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"entryId"}},{"kind":"Field","name":{"kind":"Name","value":"outcome"}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edge"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"src"}},{"kind":"Field","name":{"kind":"Name","value":"dst"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"weight"}}]}}]}}]}}]} as unknown as DocumentNode<FeedEventsSubscription, FeedEventsSubscriptionVariables>;
export const ForgetDocument = {"__meta__":{"hash":"963267dbcdd0b4bad9bf934c75bf358ca8fc13917e516b2463d7209e56be7159"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"Forget"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ForgetInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"forget"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"forgotten"}},{"kind":"Field","name":{"kind":"Name","value":"forgottenId"}}]}}]}}]} as unknown as DocumentNode<ForgetMutation, ForgetMutationVariables>;
export const GraphViewDocument = {"__meta__":{"hash":"80f12a297629658c3c6234fb230b6ddb44d6558e28295906765a5429b021e07d"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"GraphView"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"seedIds"}},"type":{"kind":"NonNullType","type":{"kind":"ListType","type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"hops"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"graphView"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"seedIds"},"value":{"kind":"Variable","name":{"kind":"Name","value":"seedIds"}}},{"kind":"Argument","name":{"kind":"Name","value":"hops"},"value":{"kind":"Variable","name":{"kind":"Name","value":"hops"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"truncated"}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"hop"}},{"kind":"Field","name":{"kind":"Name","value":"score"}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EntryFields"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EdgeFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"claimTag"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"volatility"}},{"kind":"Field","name":{"kind":"Name","value":"freshness"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"evidenceRef"}},{"kind":"Field","name":{"kind":"Name","value":"observedAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EdgeFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Edge"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"src"}},{"kind":"Field","name":{"kind":"Name","value":"dst"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"weight"}},{"kind":"Field","name":{"kind":"Name","value":"provenance"}},{"kind":"Field","name":{"kind":"Name","value":"metadata"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<GraphViewQuery, GraphViewQueryVariables>;
export const LastEventSeqDocument = {"__meta__":{"hash":"f1ce4b2d9bf553da20899928c0992dd5f76f602c72c54d6aa090fc0a7b6476ff"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"LastEventSeq"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"lastEventSeq"}},{"kind":"Field","name":{"kind":"Name","value":"stats"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"workspace"}}]}}]}}]} as unknown as DocumentNode<LastEventSeqQuery, LastEventSeqQueryVariables>;
export const LinkDocument = {"__meta__":{"hash":"2b4377a74db90b195da086e624356c8f9b1bc26f6b87c07d79fc451e1c896523"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"Link"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"LinkInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"link"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"edge"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EdgeFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EdgeFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Edge"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"src"}},{"kind":"Field","name":{"kind":"Name","value":"dst"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"weight"}},{"kind":"Field","name":{"kind":"Name","value":"provenance"}},{"kind":"Field","name":{"kind":"Name","value":"metadata"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<LinkMutation, LinkMutationVariables>;
export const RecallDocument = {"__meta__":{"hash":"f9502efa7f95baadda67f532036596b2ad13511105dff7bde15e908fcd674cd9"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Recall"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"query"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"topK"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"hops"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"tag"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"kind"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"EntryKind"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"filter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"RecallFilter"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"asOf"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"DateTime"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"full"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"recall"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"query"},"value":{"kind":"Variable","name":{"kind":"Name","value":"query"}}},{"kind":"Argument","name":{"kind":"Name","value":"topK"},"value":{"kind":"Variable","name":{"kind":"Name","value":"topK"}}},{"kind":"Argument","name":{"kind":"Name","value":"hops"},"value":{"kind":"Variable","name":{"kind":"Name","value":"hops"}}},{"kind":"Argument","name":{"kind":"Name","value":"tag"},"value":{"kind":"Variable","name":{"kind":"Name","value":"tag"}}},{"kind":"Argument","name":{"kind":"Name","value":"kind"},"value":{"kind":"Variable","name":{"kind":"Name","value":"kind"}}},{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"filter"}}},{"kind":"Argument","name":{"kind":"Name","value":"asOf"},"value":{"kind":"Variable","name":{"kind":"Name","value":"asOf"}}},{"kind":"Argument","name":{"kind":"Name","value":"full"},"value":{"kind":"Variable","name":{"kind":"Name","value":"full"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"query"}},{"kind":"Field","name":{"kind":"Name","value":"queryUsed"}},{"kind":"Field","name":{"kind":"Name","value":"candidates"}},{"kind":"Field","name":{"kind":"Name","value":"usedChars"}},{"kind":"Field","name":{"kind":"Name","value":"budgetChars"}},{"kind":"Field","name":{"kind":"Name","value":"hits"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"rank"}},{"kind":"Field","name":{"kind":"Name","value":"score"}},{"kind":"Field","name":{"kind":"Name","value":"snippet"}},{"kind":"Field","name":{"kind":"Name","value":"truncated"}},{"kind":"Field","name":{"kind":"Name","value":"hop"}},{"kind":"Field","name":{"kind":"Name","value":"arms"}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EntryFields"}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"claimTag"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"volatility"}},{"kind":"Field","name":{"kind":"Name","value":"freshness"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"evidenceRef"}},{"kind":"Field","name":{"kind":"Name","value":"observedAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<RecallQuery, RecallQueryVariables>;
export const RecallExplainedDocument = {"__meta__":{"hash":"d5d68b56d551ec9f4d114f2e0f12c21022b98f0b4f1abad86c153f3dbd8d719e"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"RecallExplained"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"query"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"topK"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"hops"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"tag"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"kind"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"EntryKind"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"filter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"RecallFilter"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"asOf"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"DateTime"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"full"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Boolean"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"recall"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"query"},"value":{"kind":"Variable","name":{"kind":"Name","value":"query"}}},{"kind":"Argument","name":{"kind":"Name","value":"topK"},"value":{"kind":"Variable","name":{"kind":"Name","value":"topK"}}},{"kind":"Argument","name":{"kind":"Name","value":"hops"},"value":{"kind":"Variable","name":{"kind":"Name","value":"hops"}}},{"kind":"Argument","name":{"kind":"Name","value":"tag"},"value":{"kind":"Variable","name":{"kind":"Name","value":"tag"}}},{"kind":"Argument","name":{"kind":"Name","value":"kind"},"value":{"kind":"Variable","name":{"kind":"Name","value":"kind"}}},{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"filter"}}},{"kind":"Argument","name":{"kind":"Name","value":"asOf"},"value":{"kind":"Variable","name":{"kind":"Name","value":"asOf"}}},{"kind":"Argument","name":{"kind":"Name","value":"full"},"value":{"kind":"Variable","name":{"kind":"Name","value":"full"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"query"}},{"kind":"Field","name":{"kind":"Name","value":"queryUsed"}},{"kind":"Field","name":{"kind":"Name","value":"timeRange"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"from"}},{"kind":"Field","name":{"kind":"Name","value":"to"}},{"kind":"Field","name":{"kind":"Name","value":"phrase"}}]}},{"kind":"Field","name":{"kind":"Name","value":"candidates"}},{"kind":"Field","name":{"kind":"Name","value":"usedChars"}},{"kind":"Field","name":{"kind":"Name","value":"budgetChars"}},{"kind":"Field","name":{"kind":"Name","value":"policyVersion"}},{"kind":"Field","name":{"kind":"Name","value":"omitted"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entryId"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}}]}},{"kind":"Field","name":{"kind":"Name","value":"hits"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"rank"}},{"kind":"Field","name":{"kind":"Name","value":"score"}},{"kind":"Field","name":{"kind":"Name","value":"snippet"}},{"kind":"Field","name":{"kind":"Name","value":"truncated"}},{"kind":"Field","name":{"kind":"Name","value":"hop"}},{"kind":"Field","name":{"kind":"Name","value":"arms"}},{"kind":"Field","name":{"kind":"Name","value":"via"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"src"}},{"kind":"Field","name":{"kind":"Name","value":"dst"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"weight"}}]}},{"kind":"Field","name":{"kind":"Name","value":"explain"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"keywordRank"}},{"kind":"Field","name":{"kind":"Name","value":"bm25"}},{"kind":"Field","name":{"kind":"Name","value":"graphScore"}},{"kind":"Field","name":{"kind":"Name","value":"vectorRank"}},{"kind":"Field","name":{"kind":"Name","value":"rrf"}},{"kind":"Field","name":{"kind":"Name","value":"decay"}},{"kind":"Field","name":{"kind":"Name","value":"recallBoost"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"tagOverlap"}},{"kind":"Field","name":{"kind":"Name","value":"final"}}]}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EntryFields"}}]}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"claimTag"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"volatility"}},{"kind":"Field","name":{"kind":"Name","value":"freshness"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"evidenceRef"}},{"kind":"Field","name":{"kind":"Name","value":"observedAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<RecallExplainedQuery, RecallExplainedQueryVariables>;
export const RecentEntriesDocument = {"__meta__":{"hash":"f7b35b72662722ca4a88d7e4aaf27a35cd7feeacfb2ee765ae28d012ba36a6a1"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"RecentEntries"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"n"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"recent"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"n"},"value":{"kind":"Variable","name":{"kind":"Name","value":"n"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}}]}}]}}]} as unknown as DocumentNode<RecentEntriesQuery, RecentEntriesQueryVariables>;
export const SetStatusDocument = {"__meta__":{"hash":"e9c792a461ed14c90a8f368724801f088cb63f80f47bfb503c582dadbb065452"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"SetStatus"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"SetStatusInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"setStatus"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EntryFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"claimTag"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"volatility"}},{"kind":"Field","name":{"kind":"Name","value":"freshness"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"evidenceRef"}},{"kind":"Field","name":{"kind":"Name","value":"observedAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<SetStatusMutation, SetStatusMutationVariables>;
export const UnlinkDocument = {"__meta__":{"hash":"3e495c4d3fbae48947a6ba8545ec6bb148cf9b9706847705cd5ac9f26523b152"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"Unlink"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UnlinkInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"unlink"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"removedEdgeId"}},{"kind":"Field","name":{"kind":"Name","value":"source"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}}]}},{"kind":"Field","name":{"kind":"Name","value":"target"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}}]}}]}}]}}]} as unknown as DocumentNode<UnlinkMutation, UnlinkMutationVariables>;
export const UpdateDocument = {"__meta__":{"hash":"dbbcd92b6dfa7431b69e91cd45105f67d43ca32090f91474b95a16ec3c005eba"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"Update"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"UpdateInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"update"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"entry"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"FragmentSpread","name":{"kind":"Name","value":"EntryFields"}}]}}]}}]}},{"kind":"FragmentDefinition","name":{"kind":"Name","value":"EntryFields"},"typeCondition":{"kind":"NamedType","name":{"kind":"Name","value":"Entry"}},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"__typename"}},{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"kind"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"claimTag"}},{"kind":"Field","name":{"kind":"Name","value":"tags"}},{"kind":"Field","name":{"kind":"Name","value":"importance"}},{"kind":"Field","name":{"kind":"Name","value":"volatility"}},{"kind":"Field","name":{"kind":"Name","value":"freshness"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"evidenceRef"}},{"kind":"Field","name":{"kind":"Name","value":"observedAt"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"updatedAt"}}]}}]} as unknown as DocumentNode<UpdateMutation, UpdateMutationVariables>;