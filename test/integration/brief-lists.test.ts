import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRY_STATUSES, VOLATILITIES } from '../../src/contract/enums.ts';
import { VOLATILITY_MAX_AGE_MS } from '../../src/contract/policy.ts';
import type { Db } from '../../src/db/client.ts';
import { entryHeads, importantEntries, staleEntries } from '../../src/memory/queries.ts';
import { random } from '../helpers/random.ts';
import { type ScratchDb, scratchWorkspaceDb } from '../helpers/workspace-db.ts';

/**
 * A brief's important and stale lists come from partial indexes, through statements written
 * to match them: they must pick exactly the entries the lists' rules pick, in their order,
 * whatever mix of statuses, volatilities, importances and ages the workspace holds.
 */

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);

interface Row {
  n: number;
  id: string;
  status: string;
  volatility: string;
  importance: number;
  updatedAt: number;
}

let scratch: ScratchDb;
let client: ScratchDb['client'];
let db: Db;
const rows: Row[] = [];

beforeAll(async () => {
  scratch = await scratchWorkspaceDb('brief-lists');
  ({ client, db } = scratch);
  const next = random(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  for (let i = 1; i <= 600; i++) {
    // Few distinct importances and ages, so that ties are common and the tie-breaks count.
    const row: Row = {
      n: i,
      id: `e${String(i).padStart(4, '0')}`,
      status: pick(ENTRY_STATUSES),
      volatility: pick(VOLATILITIES),
      importance: pick([0.1, 0.5, 0.5, 0.9, 1]),
      updatedAt: NOW - pick([0, 3, 6, 8, 30, 89, 91, 200, 400]) * DAY,
    };
    rows.push(row);
  }
  await client.batch(
    rows.map((r) => ({
      sql: `INSERT INTO entries (n, id, content, content_hash, kind, status, volatility, volatility_source, importance,
                                 claim_tag, created_at, updated_at)
            VALUES (?, ?, ?, ?, 'SEMANTIC', ?, ?, 'explicit', ?, 'UNKNOWN', ?, ?)`,
      args: [
        r.n,
        r.id,
        `entry ${r.id}`,
        `h${r.n}`,
        r.status,
        r.volatility,
        r.importance,
        r.updatedAt - DAY,
        r.updatedAt,
      ],
    })),
    'write',
  );
}, 60_000);

afterAll(async () => {
  await scratch?.close();
});

/** The rules, over every row: what the lists must hold. */
function expected(list: 'important' | 'stale', n: number, now: number): string[] {
  if (list === 'important') {
    return rows
      .filter((r) => r.status === 'ACTIVE' || r.status === 'CANONICAL')
      .sort((a, b) => b.importance - a.importance || b.updatedAt - a.updatedAt || b.n - a.n)
      .slice(0, n)
      .map((r) => r.id);
  }
  const tooOld = (r: Row) => {
    const max = VOLATILITY_MAX_AGE_MS[r.volatility as keyof typeof VOLATILITY_MAX_AGE_MS];
    return max != null && r.updatedAt < now - max;
  };
  return rows
    .filter((r) => r.status === 'STALE' || (r.status === 'ACTIVE' && tooOld(r)))
    .sort((a, b) => a.updatedAt - b.updatedAt || a.n - b.n)
    .slice(0, n)
    .map((r) => r.id);
}

describe("a brief's lists", () => {
  it('hold the most important entries in force, by importance, then newest, then latest row', async () => {
    for (const n of [1, 5, 40]) {
      const want = expected('important', n, NOW);
      expect(want).toHaveLength(n);
      expect((await importantEntries(db, n)).map((e) => e.id)).toEqual(want);
      expect((await entryHeads(db, 'important', n, NOW)).map((e) => e.id)).toEqual(want);
    }
  });

  it('hold the STALE entries and the ACTIVE ones past their age limit, oldest first, at any time', async () => {
    // Before any limit has passed, then as each has, and long after.
    for (const now of [NOW - 500 * DAY, NOW, NOW + 5 * DAY, NOW + 100 * DAY, NOW + 1000 * DAY]) {
      for (const n of [1, 5, 40]) {
        const want = expected('stale', n, now);
        expect(
          (await staleEntries(db, n, now)).map((e) => e.id),
          `now ${now}, n ${n}`,
        ).toEqual(want);
        expect((await entryHeads(db, 'stale', n, now)).map((e) => e.id)).toEqual(want);
      }
    }
    // Long after, there are more stale entries than any list holds: the parts each read
    // their own first entries and the list takes the oldest of them.
    expect(expected('stale', 40, NOW + 1000 * DAY)).toHaveLength(40);
  });
});
