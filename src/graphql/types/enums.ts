import {
  CAPTURE_OUTCOMES,
  CLAIM_TAGS,
  DIRECTIONS,
  EDGE_TYPES,
  ENTRY_KINDS,
  ENTRY_STATUSES,
  EVENT_TYPES,
  FRESHNESS,
  PROVENANCES,
  REVISION_OPS,
  VOLATILITIES,
} from '../../memory/model.ts';
import { builder } from '../builder.ts';

export const EntryKindEnum = builder.enumType('EntryKind', {
  description: 'What kind of memory an entry is; the writer classifies it.',
  values: ENTRY_KINDS,
});
export const EntryStatusEnum = builder.enumType('EntryStatus', {
  description: 'Where an entry stands: in force (ACTIVE, CANONICAL), out of date (STALE), replaced (SUPERSEDED) or retired (DEPRECATED).',
  values: ENTRY_STATUSES,
});
export const VolatilityEnum = builder.enumType('Volatility', {
  description: 'How fast an entry goes out of date: DURABLE never, EVOLVING after 90 days, EPHEMERAL after 7 days.',
  values: VOLATILITIES,
});
export const ClaimTagEnum = builder.enumType('ClaimTag', {
  description: 'How well an entry is supported: VERIFIED against evidence, INFERRED, or UNKNOWN.',
  values: CLAIM_TAGS,
});
export const EdgeTypeEnum = builder.enumType('EdgeType', {
  description: 'The relation an edge states. RELATES_TO is symmetric; the others point from src to dst.',
  values: EDGE_TYPES,
});
export const ProvenanceEnum = builder.enumType('Provenance', {
  description: 'Who made an edge: stated EXPLICIT by a caller, INFERRED, or made by the SYSTEM (EXPLICIT > INFERRED > SYSTEM).',
  values: PROVENANCES,
});
export const CaptureOutcomeEnum = builder.enumType('CaptureOutcome', {
  description: 'What a capture did: STORED a new entry, BLOCKED a duplicate, MERGED new tags into a duplicate, or REPLACED an entry.',
  values: CAPTURE_OUTCOMES,
});
export const FreshnessEnum = builder.enumType('Freshness', {
  description: 'How current an entry is at read time, from its status, SUPERSEDES edges and age against its volatility.',
  values: FRESHNESS,
});
export const DirectionEnum = builder.enumType('Direction', {
  description: 'Which way an edge runs as seen from an entry: OUT of it, IN to it, or BOTH (symmetric RELATES_TO).',
  values: DIRECTIONS,
});
export const RecallArmEnum = builder.enumType('RecallArm', {
  description: 'A retrieval arm that found a recall hit.',
  values: ['KEYWORD', 'GRAPH', 'VECTOR'] as const,
});
export const RevisionOpEnum = builder.enumType('RevisionOp', {
  description: 'The write that retired a revision: APPEND or UPDATE.',
  values: REVISION_OPS,
});
export const MemoryEventTypeEnum = builder.enumType('MemoryEventType', {
  description: 'The kind of committed write an event reports.',
  values: EVENT_TYPES,
});
