import { builder } from '../builder.ts';

/** Enum values with their descriptions, so schema.graphql documents every value. */
function values<const K extends string>(described: Record<K, string>) {
  return Object.fromEntries(Object.entries(described).map(([k, d]) => [k, { description: d as string }])) as Record<
    K,
    { description: string }
  >;
}

export const EntryKindEnum = builder.enumType('EntryKind', {
  description: 'What kind of memory an entry is; the writer classifies it.',
  values: values({
    EPISODIC: 'Something that happened: an event, a conversation turn, an observation.',
    SEMANTIC: 'A fact or piece of knowledge.',
    PROCEDURAL: 'How to do something.',
    PERSON: 'A person.',
    PROJECT: 'A project.',
    DOCUMENT: 'A document or a pointer to one.',
  }),
});
export const EntryStatusEnum = builder.enumType('EntryStatus', {
  description: 'Where an entry stands in its life.',
  values: values({
    ACTIVE: 'In force.',
    CANONICAL: 'In force and authoritative.',
    STALE: 'Out of date, to review.',
    SUPERSEDED: 'Replaced by a newer entry.',
    DEPRECATED: 'Retired; recall skips it unless asked for.',
  }),
});
export const VolatilityEnum = builder.enumType('Volatility', {
  description: 'How fast an entry goes out of date.',
  values: values({
    DURABLE: 'Never goes stale by age.',
    EVOLVING: 'Stale after 90 days without change.',
    EPHEMERAL: 'Stale after 7 days without change.',
  }),
});
export const ClaimTagEnum = builder.enumType('ClaimTag', {
  description: 'How well an entry is supported.',
  values: values({
    VERIFIED: 'Checked against evidence.',
    INFERRED: 'Concluded, not checked.',
    UNKNOWN: 'Not known.',
  }),
});
export const EdgeTypeEnum = builder.enumType('EdgeType', {
  description: 'The relation an edge states. RELATES_TO is symmetric; the others point from src to dst.',
  values: values({
    RELATES_TO: 'Related, in no particular direction (symmetric; any kinds).',
    SUPERSEDES: 'src replaces dst; dst becomes SUPERSEDED.',
    CAUSED_BY: 'src was caused by dst (any kinds).',
    DECIDED: 'An EPISODIC src decided dst.',
    ABOUT_PERSON: 'src is about a PERSON dst.',
    PART_OF_PROJECT: 'src is part of a PROJECT dst.',
    FOLLOWS: 'An EPISODIC src follows an EPISODIC dst in time.',
    DOCUMENT_OF: 'A DOCUMENT src documents dst.',
  }),
});
export const ProvenanceEnum = builder.enumType('Provenance', {
  description: 'Who made an edge; on re-linking the stronger wins (EXPLICIT > INFERRED > SYSTEM).',
  values: values({
    EXPLICIT: 'Stated by a caller.',
    INFERRED: 'Inferred by a caller or a process.',
    SYSTEM: 'Made by Mini-Sphere itself (e.g. by a replacing capture).',
  }),
});
export const CaptureOutcomeEnum = builder.enumType('CaptureOutcome', {
  description: 'What a capture did.',
  values: values({
    STORED: 'A new entry was stored.',
    BLOCKED: 'The same content exists with every given tag; nothing was written.',
    MERGED: 'The same content exists; the new tags were added to it.',
    REPLACED: 'A new entry was stored and the replaced one became SUPERSEDED.',
  }),
});
export const FreshnessEnum = builder.enumType('Freshness', {
  description: 'How current an entry is at read time.',
  values: values({
    CURRENT: 'Within the first half of its volatility’s lifetime.',
    AGING: 'Past half of its volatility’s lifetime.',
    STALE: 'Marked STALE, or older than its volatility allows.',
    SUPERSEDED: 'Marked SUPERSEDED, or the target of a SUPERSEDES edge.',
  }),
});
export const DirectionEnum = builder.enumType('Direction', {
  description: 'Which way an edge runs as seen from an entry.',
  values: values({
    OUT: 'From this entry to the other.',
    IN: 'From the other entry to this one.',
    BOTH: 'Both ways (symmetric RELATES_TO); as a filter, any direction.',
  }),
});
export const RecallArmEnum = builder.enumType('RecallArm', {
  description: 'A retrieval arm that found a recall hit.',
  values: values({
    KEYWORD: 'Full-text search (FTS5 BM25).',
    GRAPH: 'Edges walked from the keyword hits.',
    VECTOR: 'Embedding similarity (reserved; not enabled).',
  }),
});
export const RevisionOpEnum = builder.enumType('RevisionOp', {
  description: 'The write that retired a revision.',
  values: values({ APPEND: 'Text was appended.', UPDATE: 'The content was replaced.' }),
});
export const MemoryEventTypeEnum = builder.enumType('MemoryEventType', {
  description: 'The kind of committed write an event reports.',
  values: values({
    CAPTURED: 'An entry was stored, merged into, or replaced (see outcome).',
    APPENDED: 'Text was appended to an entry.',
    UPDATED: 'An entry’s content was replaced.',
    STATUS_CHANGED: 'An entry’s status changed.',
    FORGOTTEN: 'An entry and everything of it was removed.',
    LINKED: 'An edge was made or strengthened.',
    UNLINKED: 'An edge was removed.',
    STALENESS_PASS: 'A staleness pass ran.',
  }),
});
