import { badInput } from './errors.ts';

/** The limits every write and read argument is held to; outside them is BAD_USER_INPUT. */
export const LIMITS = {
  contentMax: 100_000,
  tagsMax: 32,
  tagLengthMax: 64,
  sourceMax: 2_000,
  evidenceRefMax: 2_000,
  metadataMax: 16_000,
  /** How deep JSON input (edge metadata) may nest: far beyond any worth storing, far within every stack. */
  jsonDepthMax: 64,
  topK: [1, 50],
  hops: [0, 3],
  queryLength: [1, 1_000],
  graphSeedsMax: 50,
  recentN: [1, 200],
  eventLogLimit: [1, 1_000],
  stalenessLimit: [1, 10_000],
} as const;

/**
 * Lists under an entry, the workspace's tag list and the entries listing are bounded pages:
 * `first` (or, for entries, `last`) items at most, with this default when neither is given
 * and this range when one is.
 */
export const LIST_PAGES = {
  entries: { first: 50, range: [1, 200] },
  revisions: { first: 50, range: [1, 200] },
  connections: { first: 50, range: [1, 200] },
  tags: { first: 1_000, range: [1, 10_000] },
} as const;

/**
 * Bounds of a stored instant. createdAt, updatedAt and revision and edge times come from
 * the server's clock, so they never precede the Unix epoch; observedAt is the caller's and
 * may reach as far back as the DateTime scalar reads (year 0000). Nothing lies past 2200:
 * a later date is a typo or a "never" sentinel, and it would keep an entry fresh for good.
 */
export const INSTANTS = {
  stampMin: 0,
  observedMin: Date.parse('0000-01-01T00:00:00.000Z'),
  max: Date.UTC(2201, 0, 1) - 1,
};

/** An integer argument within its range, or BAD_USER_INPUT naming the field. */
export function checkRange(value: number, [min, max]: readonly [number, number], field: string): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw badInput(`${field} must be an integer from ${min} to ${max}`, field);
  }
  return value;
}

/**
 * Text a write stores must not hold U+0000: SQLite's text reads stop at it, so the stored
 * text would read back cut short (and an id holding it could never be named again).
 */
export function refuseNul(value: string, field: string): string {
  if (value.includes('\u0000')) throw badInput(`${field} must not contain the NUL character (U+0000)`, field);
  return value;
}

/** Validates content for a write: non-empty after trimming, at most 100,000 characters, no U+0000. */
export function checkContent(content: string, field = 'content'): string {
  if (content.trim().length === 0) throw badInput(`${field} must not be empty`, field);
  refuseNul(content, field);
  if (content.length > LIMITS.contentMax) {
    throw badInput(`${field} is longer than ${LIMITS.contentMax} characters`, field);
  }
  return content;
}

/** Trims, lower-cases and de-duplicates tags; enforces the count and length limits. */
export function normalizeTags(tags: readonly string[] | null | undefined): string[] {
  if (!tags) return [];
  if (tags.length > LIMITS.tagsMax) throw badInput(`at most ${LIMITS.tagsMax} tags`, 'tags');
  const out = new Set<string>();
  for (const raw of tags) {
    const tag = raw.normalize('NFC').trim().toLowerCase();
    if (tag.length === 0) throw badInput('a tag must not be empty', 'tags');
    refuseNul(tag, 'tags');
    if (tag.length > LIMITS.tagLengthMax)
      throw badInput(`a tag is longer than ${LIMITS.tagLengthMax} characters`, 'tags');
    out.add(tag);
  }
  return [...out];
}

/** A single tag argument of a read (no limits beyond normalization). */
export function normalizeTag(tag: string): string {
  return tag.normalize('NFC').trim().toLowerCase();
}

/**
 * The tags a read's filter asks an entry to carry, normalized: none empty, and no more
 * distinct ones than an entry can carry (32), so a filter is never a statement of
 * thousands of conditions.
 */
export function filterTags(tags: readonly string[], field = 'tags'): string[] {
  const normalized = [...new Set(tags.map(normalizeTag))];
  if (normalized.some((t) => t.length === 0)) throw badInput('a tag must not be empty', field);
  if (normalized.length > LIMITS.tagsMax) {
    throw badInput(`a filter names at most ${LIMITS.tagsMax} tags (an entry carries no more)`, field);
  }
  return normalized;
}

/** Whether a JSON value's arrays and objects nest deeper than `max` (walked without recursion). */
export function jsonTooDeep(value: unknown, max: number = LIMITS.jsonDepthMax): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}
