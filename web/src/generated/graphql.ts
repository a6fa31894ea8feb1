/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
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


export type AppendMutation = { append: { entry: { id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } } | null };

export type BriefQueryVariables = Exact<{ [key: string]: never; }>;


export type BriefQuery = { brief: { workspace: string, text: string, stats: { workspace: string, entries: number, edges: number, tags: number, revisions: number, oldestAt: string | null, newestAt: string | null, byKind: Array<{ key: string, count: number }>, byStatus: Array<{ key: string, count: number }>, byVolatility: Array<{ key: string, count: number }>, byClaimTag: Array<{ key: string, count: number }>, edgesByType: Array<{ key: string, count: number }> }, recent: Array<{ id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string }>, important: Array<{ id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string }>, stale: Array<{ id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string }>, topTags: Array<{ tag: string, count: number }> } };

export type CaptureMutationVariables = Exact<{
  input: CaptureInput;
}>;


export type CaptureMutation = { capture: { outcome: CaptureOutcome, matchId: string | null, entry: { id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } } | null };

export type EntryFieldsFragment = { id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string };

export type EntryDetailQueryVariables = Exact<{
  id: string | number;
}>;


export type EntryDetailQuery = { entry: { recallCount: number, contentHash: string, id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string, classification: { kind: ClassificationSource, volatility: ClassificationSource, importance: ClassificationSource, model: string | null }, conflicts: Array<{ newer: boolean, relation: ConflictRelation, reason: string, confidence: number | null, model: string, at: string, entry: { id: string, content: string } | null }>, revisions: Array<{ id: string, content: string, op: RevisionOp, at: string }>, connections: Array<{ direction: Direction, edge: { id: string, src: string, dst: string, type: EdgeType, weight: number, provenance: Provenance, metadata: unknown, createdAt: string, updatedAt: string }, entry: { id: string, content: string, kind: EntryKind, status: EntryStatus, freshness: Freshness } }> } | null };

export type FeedEventsSubscriptionVariables = Exact<{
  sinceSeq?: number | null | undefined;
  types?: Array<MemoryEventType> | MemoryEventType | null | undefined;
}>;


export type FeedEventsSubscription = { events: { seq: number, type: MemoryEventType, at: string, entryId: string | null, outcome: CaptureOutcome | null, entry: { id: string, content: string, kind: EntryKind, status: EntryStatus, tags: Array<string> } | null, edge: { id: string, src: string, dst: string, type: EdgeType, weight: number } | null } };

export type ForgetMutationVariables = Exact<{
  input: ForgetInput;
}>;


export type ForgetMutation = { forget: { forgotten: boolean, forgottenId: string } | null };

export type GraphViewQueryVariables = Exact<{
  seedIds: Array<string | number> | string | number;
  hops?: number | null | undefined;
}>;


export type GraphViewQuery = { graphView: { truncated: boolean, nodes: Array<{ hop: number, score: number, entry: { id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } }>, edges: Array<{ id: string, src: string, dst: string, type: EdgeType, weight: number, provenance: Provenance, metadata: unknown, createdAt: string, updatedAt: string }> } | null };

export type LastEventSeqQueryVariables = Exact<{ [key: string]: never; }>;


export type LastEventSeqQuery = { lastEventSeq: number, stats: { workspace: string } };

export type LinkMutationVariables = Exact<{
  input: LinkInput;
}>;


export type LinkMutation = { link: { edge: { id: string, src: string, dst: string, type: EdgeType, weight: number, provenance: Provenance, metadata: unknown, createdAt: string, updatedAt: string } } | null };

export type EdgeFieldsFragment = { id: string, src: string, dst: string, type: EdgeType, weight: number, provenance: Provenance, metadata: unknown, createdAt: string, updatedAt: string };

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


export type RecallExplainedQuery = { recall: { query: string, queryUsed: string, candidates: number, usedChars: number, budgetChars: number | null, policyVersion: string, timeRange: { from: string | null, to: string | null, phrase: string } | null, omitted: Array<{ entryId: string, reason: string }>, hits: Array<{ rank: number, score: number, snippet: string, truncated: boolean, hop: number | null, arms: Array<RecallArm>, via: { id: string, src: string, dst: string, type: EdgeType, weight: number } | null, explain: { keywordRank: number | null, bm25: number | null, graphScore: number | null, vectorRank: number | null, rrf: number, decay: number, recallBoost: number, importance: number, tagOverlap: number, final: number }, entry: { id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } }> } };

export type RecentEntriesQueryVariables = Exact<{
  n?: number | null | undefined;
}>;


export type RecentEntriesQuery = { recent: Array<{ id: string, content: string, kind: EntryKind }> };

export type SetStatusMutationVariables = Exact<{
  input: SetStatusInput;
}>;


export type SetStatusMutation = { setStatus: { entry: { id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } } | null };

export type UnlinkMutationVariables = Exact<{
  input: UnlinkInput;
}>;


export type UnlinkMutation = { unlink: { removedEdgeId: string | null, source: { id: string }, target: { id: string } } | null };

export type UpdateMutationVariables = Exact<{
  input: UpdateInput;
}>;


export type UpdateMutation = { update: { entry: { id: string, content: string, kind: EntryKind, status: EntryStatus, claimTag: ClaimTag, tags: Array<string>, importance: number, volatility: Volatility, freshness: Freshness, source: string | null, evidenceRef: string | null, observedAt: string | null, createdAt: string, updatedAt: string } } | null };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const EntryFieldsFragmentDoc = new TypedDocumentString(`
    fragment EntryFields on Entry {
  id
  content
  kind
  status
  claimTag
  tags
  importance
  volatility
  freshness
  source
  evidenceRef
  observedAt
  createdAt
  updatedAt
}
    `, {"fragmentName":"EntryFields"}) as unknown as TypedDocumentString<EntryFieldsFragment, unknown>;
export const EdgeFieldsFragmentDoc = new TypedDocumentString(`
    fragment EdgeFields on Edge {
  id
  src
  dst
  type
  weight
  provenance
  metadata
  createdAt
  updatedAt
}
    `, {"fragmentName":"EdgeFields"}) as unknown as TypedDocumentString<EdgeFieldsFragment, unknown>;
export const AppendDocument = new TypedDocumentString(`
    mutation Append($input: AppendInput!) {
  append(input: $input) {
    entry {
      ...EntryFields
    }
  }
}
    fragment EntryFields on Entry {
  id
  content
  kind
  status
  claimTag
  tags
  importance
  volatility
  freshness
  source
  evidenceRef
  observedAt
  createdAt
  updatedAt
}`, {"hash":"9091818a6cee2811c8582b55612b564dab559eef4d21bceac0ca641eed9211ba"}) as unknown as TypedDocumentString<AppendMutation, AppendMutationVariables>;
export const BriefDocument = new TypedDocumentString(`
    query Brief {
  brief {
    workspace
    text
    stats {
      workspace
      entries
      edges
      tags
      revisions
      oldestAt
      newestAt
      byKind {
        key
        count
      }
      byStatus {
        key
        count
      }
      byVolatility {
        key
        count
      }
      byClaimTag {
        key
        count
      }
      edgesByType {
        key
        count
      }
    }
    recent {
      ...EntryFields
    }
    important {
      ...EntryFields
    }
    stale {
      ...EntryFields
    }
    topTags {
      tag
      count
    }
  }
}
    fragment EntryFields on Entry {
  id
  content
  kind
  status
  claimTag
  tags
  importance
  volatility
  freshness
  source
  evidenceRef
  observedAt
  createdAt
  updatedAt
}`, {"hash":"fa92df06dd67781190a03530b4cddb9e09e95d420d653caba8520a2756fd89bf"}) as unknown as TypedDocumentString<BriefQuery, BriefQueryVariables>;
export const CaptureDocument = new TypedDocumentString(`
    mutation Capture($input: CaptureInput!) {
  capture(input: $input) {
    outcome
    matchId
    entry {
      ...EntryFields
    }
  }
}
    fragment EntryFields on Entry {
  id
  content
  kind
  status
  claimTag
  tags
  importance
  volatility
  freshness
  source
  evidenceRef
  observedAt
  createdAt
  updatedAt
}`, {"hash":"20595dd0c6e26275771b6b2af493e8df74051098b985bb9e0c47e3db7705ebc1"}) as unknown as TypedDocumentString<CaptureMutation, CaptureMutationVariables>;
export const EntryDetailDocument = new TypedDocumentString(`
    query EntryDetail($id: ID!) {
  entry(id: $id) {
    ...EntryFields
    recallCount
    contentHash
    classification {
      kind
      volatility
      importance
      model
    }
    conflicts {
      entry {
        id
        content
      }
      newer
      relation
      reason
      confidence
      model
      at
    }
    revisions {
      id
      content
      op
      at
    }
    connections {
      direction
      edge {
        ...EdgeFields
      }
      entry {
        id
        content
        kind
        status
        freshness
      }
    }
  }
}
    fragment EntryFields on Entry {
  id
  content
  kind
  status
  claimTag
  tags
  importance
  volatility
  freshness
  source
  evidenceRef
  observedAt
  createdAt
  updatedAt
}
fragment EdgeFields on Edge {
  id
  src
  dst
  type
  weight
  provenance
  metadata
  createdAt
  updatedAt
}`, {"hash":"ffa3c6da67d1342967bdf5a3e3f75b9969defc0f023f3e5b5ac3846723b4f7f7"}) as unknown as TypedDocumentString<EntryDetailQuery, EntryDetailQueryVariables>;
export const FeedEventsDocument = new TypedDocumentString(`
    subscription FeedEvents($sinceSeq: Int, $types: [MemoryEventType!]) {
  events(sinceSeq: $sinceSeq, types: $types) {
    seq
    type
    at
    entryId
    outcome
    entry {
      id
      content
      kind
      status
      tags
    }
    edge {
      id
      src
      dst
      type
      weight
    }
  }
}
    `, {"hash":"0ce23436bae1a4c58ca122b27a1cb9fe45a5f16a527de5ff08f4c12120a0a05b"}) as unknown as TypedDocumentString<FeedEventsSubscription, FeedEventsSubscriptionVariables>;
export const ForgetDocument = new TypedDocumentString(`
    mutation Forget($input: ForgetInput!) {
  forget(input: $input) {
    forgotten
    forgottenId
  }
}
    `, {"hash":"d865f0eeb0cd85684f0d16a201f7ea096e5c6b76bf203bd022d9e6922a51e79c"}) as unknown as TypedDocumentString<ForgetMutation, ForgetMutationVariables>;
export const GraphViewDocument = new TypedDocumentString(`
    query GraphView($seedIds: [ID!]!, $hops: Int) {
  graphView(seedIds: $seedIds, hops: $hops) {
    truncated
    nodes {
      hop
      score
      entry {
        ...EntryFields
      }
    }
    edges {
      ...EdgeFields
    }
  }
}
    fragment EntryFields on Entry {
  id
  content
  kind
  status
  claimTag
  tags
  importance
  volatility
  freshness
  source
  evidenceRef
  observedAt
  createdAt
  updatedAt
}
fragment EdgeFields on Edge {
  id
  src
  dst
  type
  weight
  provenance
  metadata
  createdAt
  updatedAt
}`, {"hash":"dbed31137a8cfc5ca5bdec76dffe3cbeec5de167c598d908bdb3e79d4b412b8a"}) as unknown as TypedDocumentString<GraphViewQuery, GraphViewQueryVariables>;
export const LastEventSeqDocument = new TypedDocumentString(`
    query LastEventSeq {
  lastEventSeq
  stats {
    workspace
  }
}
    `, {"hash":"6811ee296ba8bd4fe76d586d37c24325be375a52217a93e4e7a348342ed0ba60"}) as unknown as TypedDocumentString<LastEventSeqQuery, LastEventSeqQueryVariables>;
export const LinkDocument = new TypedDocumentString(`
    mutation Link($input: LinkInput!) {
  link(input: $input) {
    edge {
      ...EdgeFields
    }
  }
}
    fragment EdgeFields on Edge {
  id
  src
  dst
  type
  weight
  provenance
  metadata
  createdAt
  updatedAt
}`, {"hash":"2369ec26f8c2fa9e2f545a80f64f89f7cc43bc5d1606c3c16a86ad62fed9c073"}) as unknown as TypedDocumentString<LinkMutation, LinkMutationVariables>;
export const RecallExplainedDocument = new TypedDocumentString(`
    query RecallExplained($query: String!, $topK: Int, $hops: Int, $tag: String, $kind: EntryKind, $filter: RecallFilter, $asOf: DateTime, $full: Boolean) {
  recall(
    query: $query
    topK: $topK
    hops: $hops
    tag: $tag
    kind: $kind
    filter: $filter
    asOf: $asOf
    full: $full
  ) {
    query
    queryUsed
    timeRange {
      from
      to
      phrase
    }
    candidates
    usedChars
    budgetChars
    policyVersion
    omitted {
      entryId
      reason
    }
    hits {
      rank
      score
      snippet
      truncated
      hop
      arms
      via {
        id
        src
        dst
        type
        weight
      }
      explain {
        keywordRank
        bm25
        graphScore
        vectorRank
        rrf
        decay
        recallBoost
        importance
        tagOverlap
        final
      }
      entry {
        ...EntryFields
      }
    }
  }
}
    fragment EntryFields on Entry {
  id
  content
  kind
  status
  claimTag
  tags
  importance
  volatility
  freshness
  source
  evidenceRef
  observedAt
  createdAt
  updatedAt
}`, {"hash":"6bea8e7c3e8f3d75e2127a2b940d806d1bc83dee742dd5ee6fa401c7a561e618"}) as unknown as TypedDocumentString<RecallExplainedQuery, RecallExplainedQueryVariables>;
export const RecentEntriesDocument = new TypedDocumentString(`
    query RecentEntries($n: Int) {
  recent(n: $n) {
    id
    content
    kind
  }
}
    `, {"hash":"656652aa8e58e73fc276bfcdf8bcd71f09d29199c94bdae4aebc21ef2bfd00c8"}) as unknown as TypedDocumentString<RecentEntriesQuery, RecentEntriesQueryVariables>;
export const SetStatusDocument = new TypedDocumentString(`
    mutation SetStatus($input: SetStatusInput!) {
  setStatus(input: $input) {
    entry {
      ...EntryFields
    }
  }
}
    fragment EntryFields on Entry {
  id
  content
  kind
  status
  claimTag
  tags
  importance
  volatility
  freshness
  source
  evidenceRef
  observedAt
  createdAt
  updatedAt
}`, {"hash":"5ead8c2610e6d9a326ffc054e8a1abd047349ecfd3768a7ade2ddc3805b073f9"}) as unknown as TypedDocumentString<SetStatusMutation, SetStatusMutationVariables>;
export const UnlinkDocument = new TypedDocumentString(`
    mutation Unlink($input: UnlinkInput!) {
  unlink(input: $input) {
    removedEdgeId
    source {
      id
    }
    target {
      id
    }
  }
}
    `, {"hash":"f7ec926c8214bc1c395c51838d5ef441a51459b4cd3260b7d431a6748ec2fce6"}) as unknown as TypedDocumentString<UnlinkMutation, UnlinkMutationVariables>;
export const UpdateDocument = new TypedDocumentString(`
    mutation Update($input: UpdateInput!) {
  update(input: $input) {
    entry {
      ...EntryFields
    }
  }
}
    fragment EntryFields on Entry {
  id
  content
  kind
  status
  claimTag
  tags
  importance
  volatility
  freshness
  source
  evidenceRef
  observedAt
  createdAt
  updatedAt
}`, {"hash":"7c0e76f3c6cbf9b9def65f7f1b5bd0ae56313dff5350eefb6be351b456822ad4"}) as unknown as TypedDocumentString<UpdateMutation, UpdateMutationVariables>;