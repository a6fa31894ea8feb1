import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryEventRecord } from '../../src/contract/events.ts';
import { locateWorkspace } from '../../src/db/client.ts';
import type { LocalClient } from '../../src/db/local-client.ts';
import { type OpenedDatabase, openDatabase } from '../../src/db/open.ts';
import { ANY_KEY } from '../../src/db/planned-write.ts';
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

describe('groups of captures decided on a guess, on the write thread', () => {
  /** Every call the writer sends to the write thread, as it is sent (the calls themselves run as usual). */
  function watchCalls(o: OpenedDatabase): string[][] {
    const calls: string[][] = [];
    const channel = (o.client as LocalClient).writeThread()!;
    const run = channel.run.bind(channel);
    channel.run = (stmts) => {
      calls.push(stmts.map((s) => (typeof s === 'string' ? s : s.sql)));
      return run(stmts);
    };
    return calls;
  }
  const isGuard = (sql: string | undefined) => sql?.includes('abs(-9223372036854775807 - 1)') === true;

  it('sends each group of new content as one call, the guard first, and reads nothing', async () => {
    const o = await open('guessed');
    try {
      // The first group reads: it is what tells the writer which rowids are in use.
      await o.writer.run(captureWrite({ content: 'the first of the guessed workspace' }));
      const calls = watchCalls(o);
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) => o.writer.run(captureWrite({ content: `guessed ${round}.${i}` }))),
        );
        expect(results.map((r) => r.outcome)).toEqual(new Array(6).fill('STORED'));
      }
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) {
        expect(call[0]).toBe('BEGIN IMMEDIATE');
        expect(isGuard(call[1])).toBe(true);
        expect(call.at(-1)).toBe('COMMIT');
      }
      expect(fileRows('SELECT count(*) AS c FROM entries', 'guessed')[0]!.c).toBe(19);
      gapFree('guessed');
    } finally {
      await o.writer.close();
      o.client.close();
    }
  });

  it('a guess the guard refuses (another writer of the file) writes nothing and is read first', async () => {
    const o = await open('refused');
    const other = await open('refused');
    try {
      await o.writer.run(captureWrite({ content: 'known rowids', tags: ['a'] }));
      // Another writer stores the same content: what `o` knows of the file is stale.
      const theirs = await other.writer.run(captureWrite({ content: 'written elsewhere first', tags: ['a'] }));
      const calls = watchCalls(o);
      const [mine, fresh] = await Promise.all([
        o.writer.run(captureWrite({ content: 'written elsewhere first', tags: ['a', 'b'] })),
        o.writer.run(captureWrite({ content: 'new to both' })),
      ]);
      expect(mine.outcome).toBe('MERGED');
      expect(mine.entry.id).toBe(theirs.entry.id);
      expect(fresh.outcome).toBe('STORED');
      // The guess went first and was refused; then the group was read and written.
      expect(isGuard(calls[0]?.[1])).toBe(true);
      expect(calls.slice(1).some((c) => c[0] === 'BEGIN IMMEDIATE' && !isGuard(c[1]))).toBe(true);
      const contents = fileRows('SELECT content FROM entries ORDER BY n', 'refused').map((r) => r.content);
      expect(contents).toEqual(['known rowids', 'written elsewhere first', 'new to both']);
      gapFree('refused');
    } finally {
      for (const d of [o, other]) {
        await d.writer.close();
        d.client.close();
      }
    }
  });

  it('a guessed group whose statement fails fails alone; the group sent behind it runs after it, in order', async () => {
    const o = await open('broken-guess');
    const events: string[] = [];
    try {
      await o.writer.run(captureWrite({ content: 'before the broken guess' }));
      const before = fileRows('SELECT count(*) AS c FROM events', 'broken-guess')[0]!.c as number;
      const calls = watchCalls(o);
      // A write decided on a guess like a capture, alone in its group (it shares a key with every write).
      const broken = o.writer.run({
        keys: [ANY_KEY],
        reads: [],
        usuallyFindsNothing: true,
        decide(plan) {
          plan.emit({ type: 'CAPTURED', entryId: null, outcome: 'STORED' });
          // A moment of work first, so that the group behind it is sent before it fails.
          plan.run(
            'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT count(*) FROM c',
          );
          plan.run('INSERT INTO no_such_table VALUES (1)');
        },
      });
      const after = [0, 1, 2].map((i) => o.writer.run(captureWrite({ content: `behind the broken guess ${i}` })));
      expect(String(((await broken.catch((e: unknown) => e)) as Error).message)).toMatch(/no such table/);
      const results = await Promise.all(after);
      expect(results.map((r) => r.outcome)).toEqual(['STORED', 'STORED', 'STORED']);
      for (const row of fileRows(
        'SELECT e.content FROM events v JOIN entries e ON e.id = v.entry_id ORDER BY v.seq',
        'broken-guess',
      ))
        events.push(String(row.content));
      expect(events).toEqual([
        'before the broken guess',
        'behind the broken guess 0',
        'behind the broken guess 1',
        'behind the broken guess 2',
      ]);
      expect(fileRows('SELECT count(*) AS c FROM events', 'broken-guess')[0]!.c).toBe(before + 3);
      // Both went on a guess: the broken write, then the captures behind it, before its failure was known.
      const guessed = calls.filter((c) => isGuard(c[1]));
      expect(guessed[0]).toContain('INSERT INTO no_such_table VALUES (1)');
      expect(guessed[1]?.filter((sql) => sql.startsWith('INSERT INTO entries'))).toHaveLength(3);
      gapFree('broken-guess');
    } finally {
      await o.writer.close();
      o.client.close();
    }
  });
});

describe('two writers of one file, captures with duplicates', () => {
  it('keeps every acknowledged capture, each content once, its tags, and a log without gaps', async () => {
    const mine = await open('two-writers');
    const theirs = await open('two-writers');
    const acked: { content: string; outcome: string; id: string; tag: string }[] = [];
    // A fixed sequence: new contents mostly, some repeated (with a new tag or not), a fifth through the other writer.
    let state = 7;
    const next = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((state / 2 ** 31) * n);
    };
    try {
      for (let round = 0; round < 40; round++) {
        const writes = Array.from({ length: 12 }, () => {
          const content = `item ${next(600)}`;
          const tag = `t${next(3)}`;
          const writer = next(5) === 0 ? theirs.writer : mine.writer;
          return writer.run(captureWrite({ content, tags: [tag] })).then((r) => {
            acked.push({ content, outcome: r.outcome, id: r.entry.id, tag });
          });
        });
        await Promise.all(writes);
      }
    } finally {
      for (const o of [mine, theirs]) {
        await o.writer.close();
        o.client.close();
      }
    }
    const entries = fileRows('SELECT id, content FROM entries', 'two-writers');
    const idOf = new Map(entries.map((e) => [String(e.content), String(e.id)]));
    expect(idOf.size).toBe(entries.length);
    const outcomes = new Set(acked.map((a) => a.outcome));
    expect([...outcomes].sort()).toEqual(['BLOCKED', 'MERGED', 'STORED']);
    expect(acked.filter((a) => a.outcome === 'STORED')).toHaveLength(entries.length);
    const tags = new Set(
      fileRows('SELECT entry_id, tag FROM tags', 'two-writers').map((r) => `${r.entry_id} ${r.tag}`),
    );
    for (const a of acked) {
      expect(idOf.get(a.content)).toBe(a.id);
      expect(tags.has(`${a.id} ${a.tag}`)).toBe(true);
    }
    gapFree('two-writers');
  });
});
