import {
  CAPTURE_OUTCOMES,
  type CaptureOutcome,
  CLAIM_TAGS,
  CLASSIFICATION_FIELDS,
  CLASSIFICATION_SOURCES,
  type ClaimTag,
  type ClassificationField,
  type ClassificationSource,
  CONFLICT_RELATIONS,
  type ConflictRelation,
  DIRECTIONS,
  type Direction,
  EDGE_TYPES,
  type EdgeType,
  ENTRY_KINDS,
  ENTRY_STATUSES,
  type EntryKind,
  type EntryStatus,
  EVENT_TYPES,
  FRESHNESS,
  type Freshness,
  type MemoryEventType,
  PROVENANCES,
  type Provenance,
  REVISION_OPS,
  type RevisionOp,
  VOLATILITIES,
  type Volatility,
} from '../../contract/enums.ts';
import type { RecallArm } from '../../retrieval/fuse.ts';
import { builder } from '../builder.ts';

/**
 * Each GraphQL enum takes its values, in order, from the contract's list; the descriptions
 * are keyed by value and typed by the contract's union, so a value added to or dropped from
 * the contract fails the typecheck here until it is described.
 */
function values<const V extends string>(names: readonly V[], described: Record<V, string>) {
  return Object.fromEntries(names.map((name) => [name, { description: described[name] }])) as Record<
    V,
    { description: string }
  >;
}

const ENTRY_KIND_DESCRIPTIONS: Record<EntryKind, string> = {
  EPISODIC: 'Something that happened: an event, a conversation turn, an observation.',
  SEMANTIC: 'A fact or piece of knowledge.',
  PROCEDURAL: 'How to do something.',
  PERSON: 'A person.',
  PROJECT: 'A project.',
  DOCUMENT: 'A document or a pointer to one.',
};
const ENTRY_STATUS_DESCRIPTIONS: Record<EntryStatus, string> = {
  ACTIVE: 'In force.',
  CANONICAL: 'In force and authoritative.',
  STALE: 'Out of date, to review.',
  SUPERSEDED: 'Replaced by a newer entry.',
  DEPRECATED: 'Retired; recall skips it unless asked for.',
};
const VOLATILITY_DESCRIPTIONS: Record<Volatility, string> = {
  DURABLE: 'Never goes stale by age.',
  EVOLVING: 'Stale after 90 days without change.',
  EPHEMERAL: 'Stale after 7 days without change.',
};
const CLAIM_TAG_DESCRIPTIONS: Record<ClaimTag, string> = {
  VERIFIED: 'Checked against evidence.',
  INFERRED: 'Concluded, not checked.',
  UNKNOWN: 'Not known.',
};
const EDGE_TYPE_DESCRIPTIONS: Record<EdgeType, string> = {
  RELATES_TO: 'Related, in no particular direction (symmetric; any kinds).',
  SUPERSEDES: 'src replaces dst; dst becomes SUPERSEDED.',
  CAUSED_BY: 'src was caused by dst (any kinds).',
  DECIDED: 'An EPISODIC src decided dst.',
  ABOUT_PERSON: 'src is about a PERSON dst.',
  PART_OF_PROJECT: 'src is part of a PROJECT dst.',
  FOLLOWS: 'An EPISODIC src follows an EPISODIC dst in time.',
  DOCUMENT_OF: 'A DOCUMENT src documents dst.',
};
const PROVENANCE_DESCRIPTIONS: Record<Provenance, string> = {
  EXPLICIT: 'Stated by a caller.',
  INFERRED: 'Inferred by a caller or a process.',
  SYSTEM: 'Made by Mini-Sphere itself (e.g. by a replacing capture).',
};
const CAPTURE_OUTCOME_DESCRIPTIONS: Record<CaptureOutcome, string> = {
  STORED: 'A new entry was stored.',
  BLOCKED: 'The same content exists with every given tag; nothing was written.',
  MERGED: 'The same content exists; the new tags were added to it.',
  REPLACED: 'A new entry was stored and the replaced one became SUPERSEDED.',
};
const FRESHNESS_DESCRIPTIONS: Record<Freshness, string> = {
  CURRENT: 'Within the first half of its volatility’s lifetime.',
  AGING: 'Past half of its volatility’s lifetime.',
  STALE: 'Marked STALE, or older than its volatility allows.',
  SUPERSEDED: 'Marked SUPERSEDED, or the target of a SUPERSEDES edge.',
};
const DIRECTION_DESCRIPTIONS: Record<Direction, string> = {
  OUT: 'From this entry to the other.',
  IN: 'From the other entry to this one.',
  BOTH: 'Both ways (symmetric RELATES_TO); as a filter, any direction.',
};
const RECALL_ARM_DESCRIPTIONS: Record<RecallArm, string> = {
  KEYWORD: 'Full-text search (FTS5 BM25).',
  GRAPH: 'Edges walked from the keyword hits.',
  VECTOR: 'Embedding similarity (reserved; not enabled).',
};
const REVISION_OP_DESCRIPTIONS: Record<RevisionOp, string> = {
  APPEND: 'Text was appended.',
  UPDATE: 'The content was replaced.',
};
const EVENT_TYPE_DESCRIPTIONS: Record<MemoryEventType, string> = {
  CAPTURED: 'An entry was stored, merged into, or replaced (see outcome).',
  APPENDED: 'Text was appended to an entry.',
  UPDATED: 'An entry’s content was replaced.',
  STATUS_CHANGED: 'An entry’s status changed.',
  FORGOTTEN: 'An entry and everything of it was removed.',
  LINKED: 'An edge was made or strengthened.',
  UNLINKED: 'An edge was removed.',
  STALENESS_PASS: 'A staleness pass ran.',
  CLASSIFIED: 'The LLM binding proposed the classification fields a capture asked for (data: model, fields).',
  CONTRADICTION:
    'The LLM binding found that a new entry updates or contradicts an older one (data: other, relation, reason).',
  IMPORTED:
    'An export file was imported (`mini-sphere import`); data holds the counts. Entries and edges arrived without events of their own: refetch.',
};
const CLASSIFICATION_FIELD_DESCRIPTIONS: Record<ClassificationField, string> = {
  KIND: 'The entry’s kind.',
  VOLATILITY: 'The entry’s volatility.',
  IMPORTANCE: 'The entry’s importance.',
};
const CLASSIFICATION_SOURCE_DESCRIPTIONS: Record<ClassificationSource, string> = {
  CALLER: 'Given by the writer (the contract’s default when the writer left it out and did not ask the model).',
  DEFAULT: 'The contract’s default: the writer left it to the LLM binding, which has not answered (yet).',
  MODEL: 'Proposed by the LLM binding’s model.',
  HEURISTIC: 'Re-classified by a staleness pass.',
};
const CONFLICT_RELATION_DESCRIPTIONS: Record<ConflictRelation, string> = {
  CONTRADICTS: 'Both cannot be true, and the newer entry does not say it replaces the older one.',
  UPDATES: 'The newer entry replaces the older one: the older is out of date.',
};

export const ClassificationFieldEnum = builder.enumType('ClassificationField', {
  description: 'A field of an entry’s classification.',
  values: values(CLASSIFICATION_FIELDS, CLASSIFICATION_FIELD_DESCRIPTIONS),
});
export const ClassificationSourceEnum = builder.enumType('ClassificationSource', {
  description: 'Where a field of an entry’s classification came from.',
  values: values(CLASSIFICATION_SOURCES, CLASSIFICATION_SOURCE_DESCRIPTIONS),
});
export const ConflictRelationEnum = builder.enumType('ConflictRelation', {
  description: 'What the LLM binding found between a newer entry and an older one.',
  values: values(CONFLICT_RELATIONS, CONFLICT_RELATION_DESCRIPTIONS),
});

export const EntryKindEnum = builder.enumType('EntryKind', {
  description: 'What kind of memory an entry is; the writer classifies it.',
  values: values(ENTRY_KINDS, ENTRY_KIND_DESCRIPTIONS),
});
export const EntryStatusEnum = builder.enumType('EntryStatus', {
  description: 'Where an entry stands in its life.',
  values: values(ENTRY_STATUSES, ENTRY_STATUS_DESCRIPTIONS),
});
export const VolatilityEnum = builder.enumType('Volatility', {
  description: 'How fast an entry goes out of date.',
  values: values(VOLATILITIES, VOLATILITY_DESCRIPTIONS),
});
export const ClaimTagEnum = builder.enumType('ClaimTag', {
  description: 'How well an entry is supported.',
  values: values(CLAIM_TAGS, CLAIM_TAG_DESCRIPTIONS),
});
export const EdgeTypeEnum = builder.enumType('EdgeType', {
  description: 'The relation an edge states. RELATES_TO is symmetric; the others point from src to dst.',
  values: values(EDGE_TYPES, EDGE_TYPE_DESCRIPTIONS),
});
export const ProvenanceEnum = builder.enumType('Provenance', {
  description: 'Who made an edge; on re-linking the stronger wins (EXPLICIT > INFERRED > SYSTEM).',
  values: values(PROVENANCES, PROVENANCE_DESCRIPTIONS),
});
export const CaptureOutcomeEnum = builder.enumType('CaptureOutcome', {
  description: 'What a capture did.',
  values: values(CAPTURE_OUTCOMES, CAPTURE_OUTCOME_DESCRIPTIONS),
});
export const FreshnessEnum = builder.enumType('Freshness', {
  description: 'How current an entry is at read time.',
  values: values(FRESHNESS, FRESHNESS_DESCRIPTIONS),
});
export const DirectionEnum = builder.enumType('Direction', {
  description: 'Which way an edge runs as seen from an entry.',
  values: values(DIRECTIONS, DIRECTION_DESCRIPTIONS),
});
export const RecallArmEnum = builder.enumType('RecallArm', {
  description: 'A retrieval arm that found a recall hit.',
  // No contract list: the arms are retrieval's own (fuse.ts), typed by its union.
  values: values(Object.keys(RECALL_ARM_DESCRIPTIONS) as RecallArm[], RECALL_ARM_DESCRIPTIONS),
});
export const RevisionOpEnum = builder.enumType('RevisionOp', {
  description: 'The write that retired a revision.',
  values: values(REVISION_OPS, REVISION_OP_DESCRIPTIONS),
});
export const MemoryEventTypeEnum = builder.enumType('MemoryEventType', {
  description: 'The kind of committed write an event reports.',
  values: values(EVENT_TYPES, EVENT_TYPE_DESCRIPTIONS),
});
export const EmbedderStateEnum = builder.enumType('EmbedderState', {
  description: 'Whether the embedder (SPHERE_EMBEDDINGS) can make vectors now.',
  values: {
    READY: { value: 'ready', description: 'It answers: captures get vectors and recall runs its vector arm.' },
    UNAVAILABLE: {
      value: 'unavailable',
      description:
        'Not reached since start-up and asked again with backoff: recall is by keyword and graph only, captures are stored and get their vectors once it answers.',
    },
  } as const,
});
