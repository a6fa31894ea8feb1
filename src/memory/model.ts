import { createHash } from 'node:crypto';
import type { Freshness } from '../contract/enums.ts';
import { VOLATILITY_MAX_AGE_MS } from '../contract/policy.ts';
import type { EntryRow } from '../db/schema.ts';

/** Unicode NFC, trimmed, whitespace runs folded to one space, lower-cased. */
export function normalizeContent(content: string): string {
  return content.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase();
}

/** Hex sha-256 of the normalized content: the dedup key of `capture`. */
export function contentHash(content: string): string {
  return createHash('sha256').update(normalizeContent(content), 'utf8').digest('hex');
}

/**
 * Freshness at read time (CONTRACT §6). `superseded` says whether a SUPERSEDES edge
 * points at the entry. Uses the real clock, never a recall's `asOf`.
 */
export function freshnessOf(
  entry: Pick<EntryRow, 'status' | 'volatility' | 'updatedAt'>,
  superseded: boolean,
  now: number,
): Freshness {
  if (entry.status === 'SUPERSEDED' || superseded) return 'SUPERSEDED';
  if (entry.status === 'STALE') return 'STALE';
  const maxAge = VOLATILITY_MAX_AGE_MS[entry.volatility];
  if (maxAge === null || maxAge === undefined) return 'CURRENT';
  const age = now - entry.updatedAt;
  if (age > maxAge) return 'STALE';
  if (age > maxAge / 2) return 'AGING';
  return 'CURRENT';
}

/** True when a read should mark this entry STALE (lazy staleness): ACTIVE and past its limit. */
export function isOverAge(entry: Pick<EntryRow, 'status' | 'volatility' | 'updatedAt'>, now: number): boolean {
  if (entry.status !== 'ACTIVE') return false;
  const maxAge = VOLATILITY_MAX_AGE_MS[entry.volatility];
  return maxAge != null && now - entry.updatedAt > maxAge;
}
