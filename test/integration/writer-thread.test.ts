import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryEventRecord } from '../../src/contract/events.ts';
import { locateWorkspace } from '../../src/db/client.ts';
import type { LocalClient } from '../../src/db/local-client.ts';
import { type OpenedDatabase, openDatabase } from '../../src/db/open.ts';
import { captureWrite } from '../../src/memory/capture.ts';

// The workspace writer on an embedded file, driven directly: groups of planned writes run
// their SQL on the write thread, the next group's reads overlapping the sync of the one
// before, and what happens when a statement there fails.

let dir: string;
let opened: OpenedDatabase;
const published: MemoryEventRecord[] = [];

async function open(workspace: string, offThread?: boolean): Promise<OpenedDatabase> {
  const location = locateWorkspace(workspace, { dataDir: dir, dbUrl: null, dbAuthToken: null });
  return openDatabase(location, { workspace, offThread, onCommit: (events) => published.push(...events) });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'writer-thread-'));
  opened = await open('thread');
});

afterAll(async () => {
  await opened?.writer.close();
  opened?.client.close();
  await rm(dir, { recursive: true, force: true });
});

/** Rows as another process would read them from the file. */
function fileRows(sql: string, workspace = 'thread'): Record<string, unknown>[] {
  const db = new Database(join(dir, `${workspace}.db`));
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

const syncsOf = (o: OpenedDatabase) => (o.client as LocalClient).syncs;
const gapFree = (workspace = 'thread') => {
  const seqs = fileRows('SELECT seq FROM events ORDER BY seq', workspace).map((r) => Number(r.seq));
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
};

describe('group commit on the write thread', () => {
  it('commits a group of captures without a statement or a sync on the request thread', async () => {
    const before = syncsOf(opened);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => opened.writer.run(captureWrite({ content: `off the loop ${i}` }))),
    );
    expect(results.map((r) => r.outcome)).toEqual(new Array(10).fill('STORED'));
    // Committed and synced on the write thread: the request thread's connections did nothing.
    expect(syncsOf(opened)).toBe(before);
    const stored = fileRows("SELECT content FROM entries WHERE content LIKE 'off the loop %'").map((r) => r.content);
    expect(stored).toHaveLength(10);
    gapFree();
  });

  it('with offThread false, runs the same writes on the request thread', async () => {
    const local = await open('on-loop', false);
    try {
      const before = syncsOf(local);
      await local.writer.run(captureWrite({ content: 'on the loop' }));
      expect(syncsOf(local)).toBeGreaterThan(before);
      expect(fileRows('SELECT content FROM entries', 'on-loop').map((r) => r.content)).toEqual(['on the loop']);
    } finally {
      await local.writer.close();
      local.client.close();
    }
  });

  it('the next group reads what the group before it wrote', async () => {
    // The same content: the second capture waits for a group of its own, sent while the first commits.
    const [a, b] = await Promise.all([
      opened.writer.run(captureWrite({ content: 'twice in a row', tags: ['a'] })),
      opened.writer.run(captureWrite({ content: 'twice in a row', tags: ['b'] })),
    ]);
    expect([a.outcome, b.outcome]).toEqual(['STORED', 'MERGED']);
    expect(b.entry.id).toBe(a.entry.id);
    const tags = fileRows(`SELECT tag FROM tags WHERE entry_id = '${a.entry.id}' ORDER BY tag`).map((r) => r.tag);
    expect(tags).toEqual(['a', 'b']);
    gapFree();
  });

  it('a statement that fails takes only its own write down; a group opened meanwhile runs after it, in order', async () => {
    const before = published.length;
    const broken = opened.writer.run({ reads: [], decide: (plan) => plan.run('INSERT INTO no_such_table VALUES (1)') });
    const stored = opened.writer.run(captureWrite({ content: 'beside a broken write', tags: ['x'] }));
    const merged = opened.writer.run(captureWrite({ content: 'beside a broken write', tags: ['y'] }));
    expect(String(((await broken.catch((e: unknown) => e)) as Error).message)).toMatch(/no such table/);
    const [x, y] = await Promise.all([stored, merged]);
    expect([x.outcome, y.outcome]).toEqual(['STORED', 'MERGED']);
    const tags = fileRows(`SELECT tag FROM tags WHERE entry_id = '${x.entry.id}' ORDER BY tag`).map((r) => r.tag);
    expect(tags).toEqual(['x', 'y']);
    expect(published.slice(before).map((e) => e.outcome)).toEqual(['STORED', 'MERGED']);
    gapFree();
  });

  it('a write function between planned writes sees the ones before it, and the ones after it see its rows', async () => {
    const first = opened.writer.run(captureWrite({ content: 'before the function', tags: ['one'] }));
    const counted = opened.writer.run(async ({ exec }) => {
      const found = await exec("SELECT id FROM entries WHERE content = 'before the function'");
      const id = String(found.rows[0]?.id);
      await exec('INSERT INTO tags (entry_id, tag) VALUES (?, ?)', [id, 'two']);
      return id;
    });
    const after = opened.writer.run(captureWrite({ content: 'before the function', tags: ['one', 'two'] }));
    const [a, id, b] = await Promise.all([first, counted, after]);
    expect(id).toBe(a.entry.id);
    // Both tags are there by then: nothing is left to merge.
    expect(b.outcome).toBe('BLOCKED');
    gapFree();
  });
});
