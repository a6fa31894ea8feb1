import { type SQL, sql } from 'drizzle-orm';
import { type ClaimTag, ENTRY_STATUSES, type EntryKind, type EntryStatus, type Volatility } from '../contract/enums.ts';
import { badInput } from '../contract/errors.ts';

/** An importance bound of a filter, checked: a number from 0 to 1. */
function importanceBound(value: number, field: string): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw badInput(`${field} must be between 0 and 1`, field);
  return value;
}

/** Everything that narrows recall before ranking (CONTRACT §6.2). */
export interface PrefilterInput {
  kinds?: readonly EntryKind[] | null;
  statuses?: readonly EntryStatus[] | null;
  volatilities?: readonly Volatility[] | null;
  claimTags?: readonly ClaimTag[] | null;
  /** Normalized tags; an entry must carry all of them. */
  tags?: readonly string[] | null;
  since?: Date | null;
  until?: Date | null;
  /** Importance at least / at most this (0 to 1, inclusive). */
  minImportance?: number | null;
  maxImportance?: number | null;
  /** The temporal rewrite's range: `from` inclusive, `to` exclusive. */
  timeRange?: { from: Date | null; to: Date | null } | null;
}

/** Every status but DEPRECATED: deprecated entries come back only when asked for by name. */
export const DEFAULT_STATUSES: readonly EntryStatus[] = ENTRY_STATUSES.filter((s) => s !== 'DEPRECATED');

/** The statuses a recall admits, after the default. */
export function effectiveStatuses(input: Pick<PrefilterInput, 'statuses'>): readonly EntryStatus[] {
  return input.statuses && input.statuses.length > 0 ? input.statuses : DEFAULT_STATUSES;
}

const inList = (column: SQL, values: readonly string[]) =>
  sql`${column} IN (${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`;

/**
 * The WHERE condition of the prefilter over the entries table aliased `e`. Every value is a
 * bound parameter; the time conditions use when the entry happened in the world
 * (observed_at), or when it was written where that is unknown. `since` is inclusive,
 * `until` exclusive, like the time range.
 *
 * @example
 * const where = buildPrefilter({ kinds: ['EPISODIC'], tags: ['infra'] });
 * await db.all(sql`SELECT e.id FROM entries e WHERE ${where}`);
 */
export function buildPrefilter(input: PrefilterInput): SQL {
  const at = sql`coalesce(e.observed_at, e.created_at)`;
  // The unary + keeps SQLite from driving these queries through the low-selectivity enum
  // indexes: the candidates come from FTS rowids or id lists, and "status IN (every status
  // but DEPRECATED)" through its index would scan nearly the whole table.
  const parts: SQL[] = [inList(sql`+e.status`, effectiveStatuses(input))];
  if (input.kinds && input.kinds.length > 0) parts.push(inList(sql`+e.kind`, input.kinds));
  if (input.volatilities && input.volatilities.length > 0) parts.push(inList(sql`+e.volatility`, input.volatilities));
  if (input.claimTags && input.claimTags.length > 0) parts.push(inList(sql`+e.claim_tag`, input.claimTags));
  for (const tag of new Set(input.tags ?? [])) {
    parts.push(sql`EXISTS (SELECT 1 FROM tags t WHERE t.entry_id = e.id AND t.tag = ${tag})`);
  }
  if (input.minImportance != null)
    parts.push(sql`+e.importance >= ${importanceBound(input.minImportance, 'minImportance')}`);
  if (input.maxImportance != null)
    parts.push(sql`+e.importance <= ${importanceBound(input.maxImportance, 'maxImportance')}`);
  if (input.since) parts.push(sql`${at} >= ${input.since.getTime()}`);
  if (input.until) parts.push(sql`${at} < ${input.until.getTime()}`);
  if (input.timeRange?.from) parts.push(sql`${at} >= ${input.timeRange.from.getTime()}`);
  if (input.timeRange?.to) parts.push(sql`${at} < ${input.timeRange.to.getTime()}`);
  return sql.join(parts, sql` AND `);
}
