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
// group of planned writes and what happens when one of its statements fails.

let dir: string;
let hrana: HranaTestServer;
let opened: OpenedDatabase;
const published: MemoryEventRecord[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hosted-writer-'));
  hrana = await startHranaServer({ dir: join(dir, 'hosted'), token: null });
  const location = locateWorkspace('group', { dataDir: dir, dbUrl: hrana.urlTemplate, dbAuthToken: null });
  opened = await openDatabase(location, { workspace: 'group', onCommit: (events) => published.push(...events) });
});

afterAll(async () => {
  await opened?.writer.close();
  opened?.client.close();
  await hrana?.stop();
  await rm(dir, { recursive: true, force: true });
});

function fileRows(sql: string): Record<string, unknown>[] {
  const db = new Database(hrana.dbPath('group'));
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
