/**
 * The contract's enums (CONTRACT §4), as stored in the database and named in GraphQL.
 * Plain data with no imports, so the dashboard's browser bundle shares them too.
 */
export const ENTRY_KINDS = ['EPISODIC', 'SEMANTIC', 'PROCEDURAL', 'PERSON', 'PROJECT', 'DOCUMENT'] as const;
export const ENTRY_STATUSES = ['ACTIVE', 'CANONICAL', 'STALE', 'SUPERSEDED', 'DEPRECATED'] as const;
export const VOLATILITIES = ['DURABLE', 'EVOLVING', 'EPHEMERAL'] as const;
export const CLAIM_TAGS = ['VERIFIED', 'INFERRED', 'UNKNOWN'] as const;
export const EDGE_TYPES = [
  'RELATES_TO',
  'SUPERSEDES',
  'CAUSED_BY',
  'DECIDED',
  'ABOUT_PERSON',
  'PART_OF_PROJECT',
  'FOLLOWS',
  'DOCUMENT_OF',
] as const;
export const PROVENANCES = ['EXPLICIT', 'INFERRED', 'SYSTEM'] as const;
export const CAPTURE_OUTCOMES = ['STORED', 'BLOCKED', 'MERGED', 'REPLACED'] as const;
export const FRESHNESS = ['CURRENT', 'AGING', 'STALE', 'SUPERSEDED'] as const;
export const DIRECTIONS = ['OUT', 'IN', 'BOTH'] as const;
export const REVISION_OPS = ['APPEND', 'UPDATE'] as const;
export const EVENT_TYPES = [
  'CAPTURED',
  'APPENDED',
  'UPDATED',
  'STATUS_CHANGED',
  'FORGOTTEN',
  'LINKED',
  'UNLINKED',
  'STALENESS_PASS',
  'CLASSIFIED',
  'CONTRADICTION',
  'IMPORTED',
] as const;
export const VOLATILITY_SOURCES = ['caller', 'default', 'heuristic', 'model'] as const;
/** The fields of a capture the LLM binding may propose (CaptureInput.classify). */
export const CLASSIFICATION_FIELDS = ['KIND', 'VOLATILITY', 'IMPORTANCE'] as const;
/** Where one field of an entry's classification came from. */
export const CLASSIFICATION_SOURCES = ['CALLER', 'DEFAULT', 'MODEL', 'HEURISTIC'] as const;
/** What the LLM binding found between a new entry and an older one (consistent and unrelated pairs are not kept). */
export const CONFLICT_RELATIONS = ['CONTRADICTS', 'UPDATES'] as const;

export type EntryKind = (typeof ENTRY_KINDS)[number];
export type EntryStatus = (typeof ENTRY_STATUSES)[number];
export type Volatility = (typeof VOLATILITIES)[number];
export type ClaimTag = (typeof CLAIM_TAGS)[number];
export type EdgeType = (typeof EDGE_TYPES)[number];
export type Provenance = (typeof PROVENANCES)[number];
export type CaptureOutcome = (typeof CAPTURE_OUTCOMES)[number];
export type Freshness = (typeof FRESHNESS)[number];
export type Direction = (typeof DIRECTIONS)[number];
export type RevisionOp = (typeof REVISION_OPS)[number];
export type MemoryEventType = (typeof EVENT_TYPES)[number];
export type ClassificationField = (typeof CLASSIFICATION_FIELDS)[number];
export type ClassificationSource = (typeof CLASSIFICATION_SOURCES)[number];
export type ConflictRelation = (typeof CONFLICT_RELATIONS)[number];
