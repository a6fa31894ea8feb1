import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client.ts';
import { countEntries, FEW_TAGGED, recentEntries } from '../../src/memory/queries.ts';
import { random } from '../helpers/random.ts';
import { type ScratchDb, scratchWorkspaceDb } from '../helpers/workspace-db.ts';

/**
 * `recent(tag:)` and `count(tag:)` read a tag's entries the way that is quick for it: a tag
 * on many entries from the newest entry back, one on few from its own entries. Both ways
 * must give what the rules give: the newest entries with the tag (ties by latest row), and
 * how many entries carry it.
 */

interface Row {
  n: number;
  id: string;
  kind: string;
  createdAt: number;
  tags: string[];
}

let scratch: ScratchDb;
let client: ScratchDb['client'];
let db: Db;
let rows: Row[] = [];

beforeAll(async () => {
  scratch = await scratchWorkspaceDb('tag-reads');
  ({ client, db } = scratch);
  const next = random(11);
  const total = FEW_TAGGED + 600;
  for (let i = 1; i <= total; i++) {
    const tags: string[] = [];
    // "many" on more entries than FEW_TAGGED, "few" on forty, and the entries' times
    // drawn from few values, so that ties are common.
    if (next() < 0.92) tags.push('many');
    if (i % 61 === 0) tags.push('few');
    rows.push({
      n: i,
      id: `e${String(i).padStart(5, '0')}`,
      kind: next() < 0.5 ? 'EPISODIC' : 'SEMANTIC',
      createdAt: 1_700_000_000_000 + Math.floor(next() * 300) * 1000,
      tags,
    });
  }
  expect(rows.filter((r) => r.tags.includes('many')).length).toBeGreaterThan(FEW_TAGGED);
  await client.batch(
    rows.flatMap((r) => [
      {
        sql: `INSERT INTO entries (n, id, content, content_hash, kind, status, volatility, volatility_source, importance,
                                   claim_tag, created_at, updated_at)
              VALUES (?, ?, ?, ?, ?, 'ACTIVE', 'DURABLE', 'default', 0.5, 'UNKNOWN', ?, ?)`,
        args: [r.n, r.id, `entry ${r.id}`, `h${r.n}`, r.kind, r.createdAt, r.createdAt],
      },
      ...r.tags.map((tag) => ({ sql: 'INSERT INTO tags (entry_id, tag) VALUES (?, ?)', args: [r.id, tag] })),
    ]),
    'write',
  );
}, 60_000);

afterAll(async () => {
  await scratch?.close();
});

const newest = (tag: string, n: number) =>
  rows
    .filter((r) => r.tags.includes(tag))
    .sort((a, b) => b.createdAt - a.createdAt || b.n - a.n)
    .slice(0, n)
    .map((r) => r.id);

describe('reads of one tag', () => {
  it('recent(tag:) lists the newest entries with the tag, for a tag on many entries and on few', async () => {
    for (const tag of ['many', 'few', 'none']) {
      for (const n of [1, 20, 200]) {
        const want = newest(tag, n);
        expect(
          (await recentEntries(db, n, tag)).map((e) => e.id),
          `${tag} ${n}`,
        ).toEqual(want);
        expect((await recentEntries(db, n, tag, { columns: ['kind'] })).map((e) => e.id)).toEqual(want);
      }
    }
    expect(newest('few', 200).length).toBeGreaterThan(20);
    expect(newest('none', 20)).toEqual([]);
  });

  it('count(tag:) counts the entries with the tag, alone and with a kind, and follows a forgotten entry', async () => {
    const count = (tag: string, kind?: string) =>
      rows.filter((r) => r.tags.includes(tag) && (!kind || r.kind === kind)).length;
    for (const tag of ['many', 'few', 'none']) {
      expect(await countEntries(db, { tag })).toBe(count(tag));
      expect(await countEntries(db, { tag, kind: 'EPISODIC' })).toBe(count(tag, 'EPISODIC'));
    }
    // An entry's tags go with it.
    const gone = rows.find((r) => r.tags.includes('few'))!;
    await client.execute({ sql: 'DELETE FROM entries WHERE id = ?', args: [gone.id] });
    rows = rows.filter((r) => r !== gone);
    expect(await countEntries(db, { tag: 'few' })).toBe(count('few'));
    expect((await recentEntries(db, 200, 'few')).map((e) => e.id)).toEqual(newest('few', 200));
  });
});
