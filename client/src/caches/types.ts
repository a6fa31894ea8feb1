/**
 * What both caches need to know about Mini-Sphere's schema, with no import of either library, so an Apollo-only
 * or urql-only project type-checks this package without the other installed.
 *
 * Entry, Edge and Revision implement Node and are keyed by `id` (both caches' default); Stats and Brief are one
 * per workspace and keyed by `workspace`. Every other object type is a value that lives inside whatever holds it.
 * Every shipped document selects these key fields wherever it touches these types (a test walks them).
 */

/** The identity of each keyed object type: the fields a document must select wherever it selects the type. */
export const keyFields = {
  Entry: ['id'],
  Edge: ['id'],
  Revision: ['id'],
  Stats: ['workspace'],
  Brief: ['workspace'],
} as const satisfies Record<string, readonly string[]>;

/** Object types without identity: they are stored inside their parent, never on their own. */
export const valueTypes = [
  'AppendPayload',
  'CaptureResult',
  'Classification',
  'Conflict',
  'CountBy',
  'EmbedderStatus',
  'EntryConnection',
  'EntryEdge',
  'ForgetPayload',
  'GraphNode',
  'GraphView',
  'LinkPayload',
  'LlmStatus',
  'MemoryEvent',
  'Neighbor',
  'PageInfo',
  'RecallHit',
  'RecallOmission',
  'RecallResult',
  'ScoreExplain',
  'SemanticStats',
  'SemanticThresholds',
  'SetStatusPayload',
  'SimilarEntry',
  'StalenessPassPayload',
  'StalenessReport',
  'TagCount',
  'TimeRange',
  'UnlinkPayload',
  'UpdatePayload',
  'VectorArmStatus',
] as const;

/** Types implementing `Node`, for fragments and `node`/`nodes` results. */
export const possibleTypes: Record<string, string[]> = { Node: ['Entry', 'Edge', 'Revision'] };

/** The arguments of `Query.entries` that pick a listing; the others (first, after, last, before) page through it. */
export const entriesFilterArgs = ['filter', 'orderBy'] as const;

/**
 * Root fields whose answer a forget, link or unlink can change beyond the entities it names (counts, lists,
 * graph shape, ranking): the caches drop them so the next read asks the server.
 */
export const derivedRootFields = ['brief', 'graphView', 'recall', 'recent', 'stats', 'tags'] as const;

export interface ForgetResult {
  forgottenId?: string | null;
  forgotten?: boolean | null;
}

export interface LinkResult {
  edge?: { id?: string | null; src?: string | null; dst?: string | null } | null;
}

export interface UnlinkResult {
  removedEdgeId?: string | null;
  source?: { id?: string | null } | null;
  target?: { id?: string | null } | null;
}

/** A payload field read without trusting the payload's shape: a cache updater sees whatever the document chose. */
export function idOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function endIds(...ends: unknown[]): string[] {
  const ids: string[] = [];
  for (const end of ends) {
    const id = idOf((end as { id?: unknown } | null | undefined)?.id ?? end);
    if (id && !ids.includes(id)) ids.push(id);
  }
  return ids;
}
