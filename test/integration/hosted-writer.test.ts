import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryEventRecord } from '../../src/contract/events.ts';
import { locateWorkspace } from '../../src/db/client.ts';
import { type OpenedDatabase, openDatabase } from '../../src/db/open.ts';
import { captureWrite } from '../../src/memory/capture.ts';
import { type HranaTestServer, startHranaServer } from '../helpers/hrana-server.ts';

// The workspace writer on a hosted database (the Hrana test service), driven directly: a
// group of planned writes sent as two requests and what happens when one of its statements
// fails; then groups of captures sent as one request on a guess, and what happens when the
// guess is wrong (a duplicate, another writer) or the answer is lost.

let dir: string;
let hrana: HranaTestServer;
let opened: OpenedDatabase;
let guessing: OpenedDatabase;
const published: MemoryEventRecord[] = [];
const guessedEvents: MemoryEventRecord[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hosted-writer-'));
  hrana = await startHranaServer({ dir: join(dir, 'hosted'), token: null });
  const location = locateWorkspace('group', { dataDir: dir, dbUrl: hrana.urlTemplate, dbAuthToken: null });
  // The groups of these tests are read first, as every group is where guessing is off.
  opened = await openDatabase(location, {
    workspace: 'group',
    guess: false,
    onCommit: (events) => published.push(...events),
  });
  guessing = await openDatabase(
    locateWorkspace('guessed', { dataDir: dir, dbUrl: hrana.urlTemplate, dbAuthToken: null }),
    {
      workspace: 'guessed',
      onCommit: (events) => guessedEvents.push(...events),
    },
  );
});

afterAll(async () => {
  await opened?.writer.close();
  opened?.client.close();
  await guessing?.writer.close();
  guessing?.client.close();
  await hrana?.stop();
  await rm(dir, { recursive: true, force: true });
});

function fileRows(sql: string, name = 'group'): Record<string, unknown>[] {
  const db = new Database(hrana.dbPath(name));
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

describe('pipelined group commit', () => {
  it('sends a group in two requests and a third that closes the stream', async () => {
    hrana.resetCounts();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => opened.writer.run(captureWrite({ content: `grouped ${i}` }))),
    );
    expect(results.map((r) => r.outcome)).toEqual(new Array(10).fill('STORED'));
    await new Promise((r) => setTimeout(r, 100));
    expect(hrana.roundTrips('group')).toBeLessThanOrEqual(3);
  });

  it('opens the next group while the one before it commits, and that group reads what it wrote', async () => {
    hrana.resetCounts();
    const begins = () => hrana.log.filter((r) => r.statements.includes('BEGIN IMMEDIATE')).length;
    // The first group's COMMIT is held long enough for the next group's first request to arrive.
    hrana.delay({ match: /^COMMIT/, ms: 1_500 });
    const first = opened.writer.run(captureWrite({ content: 'committed while the next group opens', tags: ['a'] }));
    const second = opened.writer.run(captureWrite({ content: 'committed while the next group opens', tags: ['b'] }));
    const a = await first;
    // The second capture (the same content, so a group of its own) was sent before the first was answered.
    expect(begins()).toBe(2);
    const b = await second;
    expect([a.outcome, b.outcome]).toEqual(['STORED', 'MERGED']);
    expect(b.entry.id).toBe(a.entry.id);
    const tags = fileRows(`SELECT tag FROM tags WHERE entry_id = '${a.entry.id}' ORDER BY tag`).map((r) => r.tag);
    expect(tags).toEqual(['a', 'b']);
    const seqs = fileRows('SELECT seq FROM events ORDER BY seq').map((r) => Number(r.seq));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it('when a group opened early follows a failing statement, its writes run after the failing group, in order', async () => {
    const before = published.length;
    const broken = opened.writer.run({ reads: [], decide: (plan) => plan.run('INSERT INTO no_such_table VALUES (2)') });
    const stored = opened.writer.run(captureWrite({ content: 'stored beside a broken write', tags: ['x'] }));
    // The same content: a group of its own, opened while the group above commits and fails.
    const merged = opened.writer.run(captureWrite({ content: 'stored beside a broken write', tags: ['y'] }));
    expect(String(((await broken.catch((e: unknown) => e)) as Error).message)).toMatch(/no such table/);
    const [x, y] = await Promise.all([stored, merged]);
    expect([x.outcome, y.outcome]).toEqual(['STORED', 'MERGED']);
    const tags = fileRows(`SELECT tag FROM tags WHERE entry_id = '${x.entry.id}' ORDER BY tag`).map((r) => r.tag);
    expect(tags).toEqual(['x', 'y']);
    const seqs = fileRows('SELECT seq FROM events ORDER BY seq').map((r) => Number(r.seq));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(published.slice(before).map((e) => e.outcome)).toEqual(['STORED', 'MERGED']);
  });

  it('a statement that fails takes only its own write down, and the event log stays gap-free', async () => {
    const before = published.length;
    const broken = opened.writer.run({ reads: [], decide: (plan) => plan.run('INSERT INTO no_such_table VALUES (1)') });
    const [a, b] = await Promise.all([
      opened.writer.run(captureWrite({ content: 'kept before the broken write' })),
      broken.catch((error: unknown) => error),
      opened.writer.run(captureWrite({ content: 'kept after the broken write' })),
    ]).then(([x, error, y]) => {
      expect(String((error as Error).message)).toMatch(/no such table/);
      return [x, y];
    });
    expect([a?.outcome, b?.outcome]).toEqual(['STORED', 'STORED']);
    const contents = fileRows('SELECT content FROM entries ORDER BY n').map((r) => r.content);
    expect(contents).toEqual(expect.arrayContaining(['kept before the broken write', 'kept after the broken write']));
    const seqs = fileRows('SELECT seq FROM events ORDER BY seq').map((r) => Number(r.seq));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(published.slice(before).map((e) => e.entryId)).toEqual([a?.entry.id, b?.entry.id]);
    expect(fileRows(`SELECT n, id FROM entries WHERE id = '${a?.entry.id}'`)).toEqual([
      { n: a?.entry.n, id: a?.entry.id },
    ]);
  });
});

describe('groups of captures sent on a guess', () => {
  const rows = (sql: string) => fileRows(sql, 'guessed');
  const capture = (content: string, tags: string[] = [], writer = guessing.writer) =>
    writer.run(captureWrite({ content, tags }));
  /** Events 1..N with no gap, entries' rowids 1..M with no gap, and no content twice. */
  const expectConsistent = () => {
    const seqs = rows('SELECT seq FROM events ORDER BY seq').map((r) => Number(r.seq));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const ns = rows('SELECT n FROM entries ORDER BY n').map((r) => Number(r.n));
    expect(ns).toEqual(ns.map((_, i) => i + 1));
    expect(rows('SELECT content_hash FROM entries GROUP BY content_hash HAVING count(*) > 1')).toEqual([]);
  };

  it('a group of captures of new content is one request, which also closes its stream', async () => {
    // The first group reads the rowids in use; the writer knows them from then on.
    await capture('the first capture of the guessed workspace');
    // Its stream's close follows the answer.
    await new Promise((r) => setTimeout(r, 100));
    hrana.resetCounts();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => capture(`guessed ${i}`)));
    expect(results.map((r) => r.outcome)).toEqual(new Array(10).fill('STORED'));
    await new Promise((r) => setTimeout(r, 100));
    expect(hrana.roundTrips('guessed')).toBe(1);
    expect(hrana.log[0]?.statements).toEqual(expect.arrayContaining(['BEGIN IMMEDIATE', 'COMMIT']));
    expect(hrana.openStreams).toBe(0);
    expect(results.map((r) => r.entry.n)).toEqual(results.map((_, i) => results[0]!.entry.n + i));
    expectConsistent();
  });

  it('a duplicate makes the guard fail: nothing of the guess is kept and the group is read first', async () => {
    await capture('already stored before the group', ['old']);
    const before = guessedEvents.length;
    hrana.resetCounts();
    const [fresh, again] = await Promise.all([
      capture('new beside a duplicate'),
      capture('already stored before the group', ['new']),
    ]);
    expect([fresh.outcome, again.outcome]).toEqual(['STORED', 'MERGED']);
    // The guessed batch, then the group read first (two requests and the close).
    expect(hrana.log.filter((r) => r.statements.includes('BEGIN IMMEDIATE'))).toHaveLength(2);
    expect(guessedEvents.slice(before).map((e) => e.outcome)).toEqual(['STORED', 'MERGED']);
    const tags = rows(`SELECT tag FROM tags WHERE entry_id = '${again.entry.id}' ORDER BY tag`).map((r) => r.tag);
    expect(tags).toEqual(['new', 'old']);
    expectConsistent();
  });

  it('another writer of the database in between: each group is written on what is there', async () => {
    const location = locateWorkspace('guessed', { dataDir: dir, dbUrl: hrana.urlTemplate, dbAuthToken: null });
    const other = await openDatabase(location, { workspace: 'guessed', migrate: false, onCommit: () => undefined });
    try {
      const results = [];
      for (let i = 0; i < 6; i++) {
        results.push(await capture(`from this instance ${i}`));
        results.push(await capture(`from the other instance ${i}`, [], other.writer));
        // The same content from both: the second finds the first's entry.
        results.push(await capture(`from both instances ${i}`, [], i % 2 ? other.writer : guessing.writer));
        results.push(await capture(`from both instances ${i}`, ['again'], i % 2 ? guessing.writer : other.writer));
      }
      expect(results.map((r) => r.outcome)).toEqual(
        Array.from({ length: 6 }, () => ['STORED', 'STORED', 'STORED', 'MERGED']).flat(),
      );
    } finally {
      await other.writer.close();
      other.client.close();
    }
    expectConsistent();
  });

  it('a guessed group whose answer is lost is acknowledged when it ran, refused when it did not', async () => {
    await capture('one more to know the rowids');
    hrana.drop({ match: /^COMMIT/, when: 'after' });
    const landed = await capture('ran, answer lost');
    expect(landed.outcome).toBe('STORED');
    expect(hrana.pendingDrops).toBe(0);
    hrana.drop({ match: /^COMMIT/, when: 'before' });
    const refused = await capture('never ran').catch((error: unknown) => error);
    expect((refused as { code?: string }).code).toBe('UNAVAILABLE');
    expect(rows("SELECT count(*) AS n FROM entries WHERE content = 'never ran'")).toEqual([{ n: 0 }]);
    expect((await capture('after the lost answers')).outcome).toBe('STORED');
    expectConsistent();
  });
});
