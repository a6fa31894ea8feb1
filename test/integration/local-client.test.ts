import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, LibsqlError } from '@libsql/client';
import { sql } from 'drizzle-orm';
import Database from 'libsql';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LaneBudget, LocalClient, WriteThreadError } from '../../src/db/local-client.ts';
import { closeTaskDb, dropIdleLanes, openTaskLanes, taskDb } from '../../src/db/read-task.ts';

let dir: string;
let client: LocalClient;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sphere-local-client-'));
  client = new LocalClient({ path: join(dir, 'db.sqlite'), concurrency: 2 });
  await client.execute('PRAGMA journal_mode = WAL');
  await client.execute('CREATE TABLE t (k INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score REAL, data BLOB)');
});

afterEach(() => {
  client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('LocalClient (embedded libSQL with kept statements)', () => {
  it('returns what @libsql/client returns: named and positional columns, numbers, rowids, changes', async () => {
    const ins = await client.execute({
      sql: 'INSERT INTO t (name, score, data) VALUES (?, ?, ?)',
      args: ['a', 1.5, new Uint8Array([1, 2])],
    });
    expect(ins.lastInsertRowid).toBe(1n);
    expect(ins.rowsAffected).toBe(1);
    await client.execute({ sql: 'INSERT INTO t (name, score) VALUES (:name, $score)', args: { name: 'b', $score: 2 } });

    const ours = await client.execute('SELECT k, name, score, data, k AS k FROM t ORDER BY k');
    const stock = createClient({ url: `file:${join(dir, 'db.sqlite')}`, intMode: 'number' });
    const theirs = await stock.execute('SELECT k, name, score, data, k AS k FROM t ORDER BY k');
    stock.close();

    expect(ours.columns).toEqual(theirs.columns);
    expect(ours.rows.length).toBe(2);
    for (let i = 0; i < 2; i++) {
      expect({ ...ours.rows[i] }).toEqual({ ...theirs.rows[i] });
      expect(Array.from(ours.rows[i]!)).toEqual(Array.from(theirs.rows[i]!));
      expect(Object.keys(ours.rows[i]!)).toEqual(Object.keys(theirs.rows[i]!));
    }
    expect(ours.rows[0]![1]).toBe('a');
    expect(new Uint8Array(ours.rows[0]!.data as ArrayBuffer)).toEqual(new Uint8Array([1, 2]));
    expect(JSON.parse(JSON.stringify(ours)).rows).toEqual([
      [1, 'a', 1.5, {}, 1],
      [2, 'b', 2, null, 2],
    ]);
  });

  it('reuses a statement after it failed, and maps SQLite errors to LibsqlError codes', async () => {
    const insert = 'INSERT INTO t (name) VALUES (?)';
    await client.execute({ sql: insert, args: ['x'] });
    const error = await client.execute({ sql: insert, args: ['x'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LibsqlError);
    expect(error).toMatchObject({ code: 'SQLITE_CONSTRAINT', extendedCode: 'SQLITE_CONSTRAINT_UNIQUE' });
    await client.execute({ sql: insert, args: ['y'] });
    expect((await client.execute('SELECT count(*) AS n FROM t')).rows[0]!.n).toBe(2);

    await expect(client.execute('SELEC nonsense')).rejects.toMatchObject({ code: 'SQLITE_ERROR' });
    await expect(client.execute({ sql: insert, args: [Number.NaN] })).rejects.toThrow(/finite/);
  });

  it('follows schema changes in a statement it keeps (SELECT * after ALTER TABLE)', async () => {
    await client.execute({ sql: 'INSERT INTO t (name) VALUES (?)', args: ['a'] });
    expect((await client.execute('SELECT * FROM t')).columns).toEqual(['k', 'name', 'score', 'data']);
    await client.execute("ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'e'");
    const after = await client.execute('SELECT * FROM t');
    expect(after.columns).toEqual(['k', 'name', 'score', 'data', 'extra']);
    expect(after.rows[0]!.extra).toBe('e');
    // Same number of columns, another name.
    await client.execute('ALTER TABLE t RENAME COLUMN score TO points');
    expect((await client.execute('SELECT * FROM t')).columns).toEqual(['k', 'name', 'points', 'data', 'extra']);

    // A change made by another connection (another process) is picked up too.
    const other = createClient({ url: `file:${join(dir, 'db.sqlite')}` });
    await other.execute('ALTER TABLE t ADD COLUMN more INTEGER DEFAULT 7');
    other.close();
    const again = await client.execute('SELECT * FROM t');
    expect(again.rows[0]!.more).toBe(7);
  });

  it('keeps a transaction on its own connection: isolated until commit, undone by rollback', async () => {
    const tx = await client.transaction('write');
    await tx.execute({ sql: 'INSERT INTO t (name) VALUES (?)', args: ['in-tx'] });
    expect((await client.execute('SELECT count(*) AS n FROM t')).rows[0]!.n).toBe(0);
    expect((await tx.execute('SELECT count(*) AS n FROM t')).rows[0]!.n).toBe(1);
    await tx.commit();
    expect(tx.closed).toBe(true);
    expect((await client.execute('SELECT count(*) AS n FROM t')).rows[0]!.n).toBe(1);

    const tx2 = await client.transaction('write');
    await tx2.execute({ sql: 'INSERT INTO t (name) VALUES (?)', args: ['undone'] });
    await tx2.rollback();
    expect((await client.execute('SELECT name FROM t')).rows.map((r) => r.name)).toEqual(['in-tx']);
    await expect(tx2.execute('SELECT 1')).rejects.toMatchObject({ code: 'TRANSACTION_CLOSED' });
  });

  it('makes a call wait while open transactions hold every connection', async () => {
    const a = await client.transaction('deferred');
    const b = await client.transaction('deferred');
    let done = false;
    const waiting = client.execute('SELECT 1 AS one').then((r) => {
      done = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    await a.commit();
    expect((await waiting).rows[0]!.one).toBe(1);
    await b.rollback();
  });

  it('runs a batch atomically', async () => {
    await expect(
      client.batch(
        [
          { sql: 'INSERT INTO t (name) VALUES (?)', args: ['one'] },
          { sql: 'INSERT INTO t (name) VALUES (?)', args: ['one'] },
        ],
        'write',
      ),
    ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT' });
    expect((await client.execute('SELECT count(*) AS n FROM t')).rows[0]!.n).toBe(0);
    const results = await client.batch(['INSERT INTO t (name) VALUES (1)', ['INSERT INTO t (name) VALUES (?)', [2]]]);
    expect(results.map((r) => r.rowsAffected)).toEqual([1, 1]);
  });

  it('stays correct past its statement cache size', async () => {
    for (let i = 0; i < 300; i++) {
      const r = await client.execute(`SELECT ${i} AS v`);
      expect(r.rows[0]!.v).toBe(i);
    }
    expect((await client.execute('SELECT 0 AS v')).rows[0]!.v).toBe(0);
  });

  it('runs WAL with NORMAL and syncs the log off the event loop before a write resolves', async () => {
    expect((await client.execute('PRAGMA journal_mode')).rows[0]![0]).toBe('wal');
    expect((await client.execute('PRAGMA synchronous')).rows[0]![0]).toBe(1);
    const before = client.syncs;
    await client.execute('SELECT count(*) FROM t');
    expect(client.syncs).toBe(before);
    await client.execute({ sql: 'INSERT INTO t (name) VALUES (?)', args: ['w'] });
    expect(client.syncs).toBe(before + 1);
    await client.execute({ sql: 'INSERT INTO t (name) VALUES (?) RETURNING k', args: ['r'] });
    expect(client.syncs).toBe(before + 2);
    const tx = await client.transaction('write');
    await tx.execute({ sql: 'INSERT INTO t (name) VALUES (?)', args: ['tx'] });
    expect(client.syncs).toBe(before + 2);
    await tx.commit();
    expect(client.syncs).toBe(before + 3);
    // Ten writes at once share a sync or two, not ten.
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => client.execute({ sql: 'INSERT INTO t (name) VALUES (?)', args: [`p${i}`] })),
    );
    expect(client.syncs - (before + 3)).toBeLessThanOrEqual(2);
  });

  it('runs calls on the write thread in order, rolls back a call that fails and says which statement did', async () => {
    const thread = client.writeThread()!;
    const before = client.syncs;
    const blob = new Uint8Array([1, 2, 3]);
    await thread.run([
      'BEGIN IMMEDIATE',
      { sql: 'INSERT INTO t (name, score, data) VALUES (?, ?, ?)', args: ['th', 1.5, blob] },
      'COMMIT',
    ]);
    const [, read] = await thread.run([
      'BEGIN',
      { sql: 'SELECT k, name, score, data FROM t WHERE name = ?', args: ['th'] },
    ]);
    await thread.run(['ROLLBACK']);
    const row = read!.rows[0]!;
    expect([row.name, row.score, row[1]]).toEqual(['th', 1.5, 'th']);
    expect(new Uint8Array(row.data as ArrayBuffer)).toEqual(blob);
    // Another connection sees the commit; the client's own connections never synced it.
    expect((await client.execute("SELECT count(*) AS n FROM t WHERE name = 'th'")).rows[0]!.n).toBe(1);
    expect(client.syncs).toBe(before);

    const failed = await thread
      .run([
        'BEGIN IMMEDIATE',
        { sql: 'INSERT INTO t (name) VALUES (?)', args: ['gone'] },
        'INSERT INTO t (name) VALUES (NULL)',
        'COMMIT',
      ])
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(WriteThreadError);
    expect(failed).toMatchObject({ at: 2, code: 'SQLITE_CONSTRAINT' });
    expect((await client.execute("SELECT count(*) AS n FROM t WHERE name = 'gone'")).rows[0]!.n).toBe(0);
    // The failed call left no transaction open behind it.
    await thread.run(['BEGIN IMMEDIATE', { sql: 'INSERT INTO t (name) VALUES (?)', args: ['after'] }, 'COMMIT']);
    expect((await client.execute("SELECT count(*) AS n FROM t WHERE name = 'after'")).rows[0]!.n).toBe(1);
  });

  it('closed while a read runs on its thread, lets the read finish before the thread stops', async () => {
    // The thread is the pool's only one and this client its only user: closing stops it.
    // Stopped inside libSQL, the thread would take the whole process down with it.
    const pooled = new LocalClient({ path: join(dir, 'db.sqlite'), readers: 1 });
    await pooled.execute('SELECT 1');
    const slow = pooled.execute(
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) AS n FROM c',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    pooled.close();
    expect(Number((await slow).rows[0]!.n)).toBe(2_000_000);
  });

  it("hands its threads' answers to the loop a slice at a time, not a whole burst in one turn", async () => {
    // Node delivers every message queued for the loop in one turn. Answers that pile up
    // while the loop is busy (here held on purpose), each followed by 2 ms of work (what
    // GraphQL does with a list's rows), would all run in that one turn: 300 ms for 150,
    // while every socket waits. A slice at a time, a turn holds the loop milliseconds.
    const pooled = new LocalClient({ path: join(dir, 'db.sqlite'), readers: 2 });
    try {
      await pooled.execute(
        "INSERT INTO t (name, score) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200) SELECT 'n' || x, x FROM c",
      );
      await Promise.all([pooled.execute('SELECT 1'), pooled.execute('SELECT 2')]);
      const hold = (ms: number) => {
        const end = performance.now() + ms;
        while (performance.now() < end);
      };
      const settled: string[] = [];
      const reads = Promise.all(
        Array.from({ length: 150 }, () =>
          pooled.execute('SELECT k, name, score FROM t').then((r) => {
            settled.push('large');
            hold(2);
            return r.rows.length;
          }),
        ),
      );
      // Sent last, a count: its answer must not wait behind the large ones.
      const count = pooled.execute('SELECT count(*) AS n FROM t').then((r) => {
        settled.push('count');
        return r.rows[0]!.n;
      });
      // The reads are sent once this turn ends; the threads answer while the next one holds the loop.
      await new Promise((resolve) => setImmediate(resolve));
      hold(500);
      let longest = 0;
      let last = performance.now();
      let ticking = true;
      const tick = () => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      expect(await reads).toEqual(Array(150).fill(200));
      expect(await count).toBe(200);
      // The turn after the last answer, measured too.
      await new Promise((resolve) => setImmediate(resolve));
      ticking = false;
      const countAt = settled.indexOf('count');
      console.log(
        `longest turn of the loop while 150 answers of 200 rows were settled: ${longest.toFixed(0)} ms; the count was settled at ${countAt + 1} of 151`,
      );
      // In one turn: at least 150 × 2 ms. A slice at a time: a few milliseconds, more on a busy machine.
      expect(longest).toBeLessThan(150);
      // In one burst it would have come 151st, after every large answer.
      expect(countAt).toBeLessThan(100);
    } finally {
      pooled.close();
    }
  });

  it('runs reads on reader threads, as one snapshot for a batch, and writes where they were', async () => {
    const pooled = new LocalClient({ path: join(dir, 'db.sqlite'), readers: 2 });
    try {
      await pooled.execute({ sql: 'INSERT INTO t (name, score) VALUES (?, ?)', args: ['r', 3] });
      const read = await pooled.execute({ sql: 'SELECT name, score FROM t WHERE name = ?', args: ['r'] });
      expect(read.rows.map((r) => ({ ...r }))).toEqual([{ name: 'r', score: 3 }]);
      const [a, b] = await pooled.batch([
        'SELECT count(*) AS n FROM t',
        'WITH x AS (SELECT 1 AS one) SELECT one FROM x',
      ]);
      expect(a!.rows[0]!.n).toBe(1);
      expect(b!.rows[0]!.one).toBe(1);
      // A reader thread's connection is read-only: only statements that read go there.
      await pooled.execute({ sql: 'UPDATE t SET score = 4 WHERE name = ?', args: ['r'] });
      expect((await pooled.execute('SELECT score FROM t')).rows[0]!.score).toBe(4);
      // While another connection holds the write lock, reads go on (WAL).
      const holder = new LocalClient({ path: join(dir, 'db.sqlite') });
      const tx = await holder.transaction('write');
      await tx.execute("INSERT INTO t (name) VALUES ('held')");
      expect((await pooled.execute('SELECT count(*) AS n FROM t')).rows[0]!.n).toBe(1);
      await tx.rollback();
      holder.close();
    } finally {
      pooled.close();
    }
  });

  it('waits for a lock another connection holds on timers: other databases on the thread go on meanwhile', async () => {
    const other = new LocalClient({ path: join(dir, 'other.sqlite') });
    const locked = new LocalClient({ path: join(dir, 'db.sqlite'), timeout: 400 });
    const holder = new LocalClient({ path: join(dir, 'db.sqlite') });
    try {
      await other.execute('CREATE TABLE u (k INTEGER PRIMARY KEY)');
      const tx = await holder.transaction('write');
      // Waits for the lock: the write thread parks it and serves `other`.
      const blocked = locked.writeThread()!.run(['BEGIN IMMEDIATE', "INSERT INTO t (name) VALUES ('late')", 'COMMIT']);
      const t0 = performance.now();
      await other.writeThread()!.run(['BEGIN IMMEDIATE', 'INSERT INTO u DEFAULT VALUES', 'COMMIT']);
      expect(performance.now() - t0).toBeLessThan(300);
      await new Promise((r) => setTimeout(r, 100));
      await tx.rollback();
      await blocked;
      expect((await locked.execute("SELECT count(*) AS n FROM t WHERE name = 'late'")).rows[0]!.n).toBe(1);

      // Held past the timeout: refused as busy, with nothing written, and the request thread never waited.
      const tx2 = await holder.transaction('write');
      const refused = locked.writeThread()!.run(["INSERT INTO t (name) VALUES ('never')"]);
      const onThisThread = locked.execute("INSERT INTO t (name) VALUES ('never either')");
      const ticks = (async () => {
        let n = 0;
        for (const end = performance.now() + 300; performance.now() < end; n++)
          await new Promise((r) => setTimeout(r, 10));
        return n;
      })();
      // Both are expected at once: whichever is refused first must already have its handler.
      await Promise.all([
        expect(refused).rejects.toMatchObject({ code: 'SQLITE_BUSY' }),
        expect(onThisThread).rejects.toMatchObject({ code: 'SQLITE_BUSY' }),
      ]);
      expect(await ticks).toBeGreaterThan(10);
      await tx2.rollback();
      expect((await locked.execute("SELECT count(*) AS n FROM t WHERE name LIKE 'never%'")).rows[0]!.n).toBe(0);
    } finally {
      holder.close();
      locked.close();
      other.close();
    }
  });

  it('has no write thread for a database that is not in WAL mode', () => {
    const memory = new LocalClient({ path: ':memory:', concurrency: 1 });
    try {
      expect(memory.writeThread()).toBeNull();
    } finally {
      memory.close();
    }
  });

  it('refuses work once closed', async () => {
    client.close();
    await expect(client.execute('SELECT 1')).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
  });
});

describe("LocalClient lanes (a reader thread's adopted connection)", () => {
  /** A read-only connection to the test file, as a reader thread holds one. */
  function threadConnection(): InstanceType<typeof Database> {
    const db = new Database(join(dir, 'db.sqlite'), { timeout: 0 });
    db.exec('PRAGMA query_only = ON');
    return db;
  }
  /** The statements a connection holds prepared, besides the one asking (SQLite's sqlite_stmt table). */
  const held = (db: InstanceType<typeof Database>) =>
    (db.prepare('SELECT sql FROM sqlite_stmt').raw(true).all() as string[][])
      .map((r) => r[0]!)
      .filter((s) => !s.includes('sqlite_stmt'));
  const selects = Array.from({ length: 10 }, (_, i) => `SELECT k, name FROM t WHERE k > ${i} ORDER BY k`);

  beforeEach(async () => {
    await client.batch(
      Array.from({ length: 12 }, (_, i) => ['INSERT INTO t (name) VALUES (?)', [`n${i}`]] as [string, [string]]),
    );
  });

  it('spreads its statements over lanes of at most four, off the adopted connection, with the same rows', async () => {
    const adopted = threadConnection();
    const budget: LaneBudget = { open: 0, max: 8 };
    const reader = new LocalClient({ path: join(dir, 'db.sqlite'), connection: adopted, lanes: budget });
    try {
      for (const q of selects) {
        const ours = await reader.execute(q);
        const theirs = await client.execute(q);
        expect(ours.rows.map((r) => ({ ...r }))).toEqual(theirs.rows.map((r) => ({ ...r })));
      }
      for (const q of selects) await reader.execute(q);
      expect(reader.laneStatements).toEqual([4, 4, 2]);
      expect(budget.open).toBe(3);
      expect(held(adopted)).toEqual([]);
      // Lanes are connections of their own to the file: they see what commits after they opened.
      await client.execute({ sql: 'INSERT INTO t (name) VALUES (?)', args: ['late'] });
      expect((await reader.execute(selects[9]!)).rows.at(-1)!.name).toBe('late');

      reader.dropLanes();
      expect(budget.open).toBe(0);
      expect(reader.laneStatements).toEqual([]);
      expect((await reader.execute(selects[0]!)).rows).toHaveLength(13);
      expect(reader.laneStatements).toEqual([1]);
    } finally {
      reader.close();
      adopted.close();
    }
    expect(budget.open).toBe(0);
  });

  it('runs on the adopted connection what the budget has no lane for, and what fails takes no room', async () => {
    const adopted = threadConnection();
    const budget: LaneBudget = { open: 0, max: 1 };
    const reader = new LocalClient({ path: join(dir, 'db.sqlite'), connection: adopted, lanes: budget });
    try {
      await expect(reader.execute('SELECT nope FROM t')).rejects.toMatchObject({ code: 'SQLITE_ERROR' });
      for (const q of selects.slice(0, 6)) expect((await reader.execute(q)).rows.length).toBeGreaterThan(0);
      expect(reader.laneStatements).toEqual([4]);
      expect(held(adopted).sort()).toEqual(selects.slice(4, 6).sort());
      // A batch is one snapshot: it runs on the adopted connection whatever its statements' lanes.
      const [a, b] = await reader.batch([selects[0]!, selects[5]!], 'read');
      expect(a!.rows).toHaveLength(12);
      expect(b!.rows).toHaveLength(7);
    } finally {
      reader.close();
      adopted.close();
    }
  });

  it("gives an idle task database's lanes back to its thread's budget", async () => {
    const adopted = threadConnection();
    const connection = { key: 9_001, path: join(dir, 'db.sqlite'), timeout: 1_000, db: adopted };
    try {
      const before = openTaskLanes();
      const rows = await taskDb(connection).all<{ n: number }>(sql`SELECT count(*) AS n FROM t`);
      expect(rows[0]!.n).toBe(12);
      expect(openTaskLanes()).toBe(before + 1);
      dropIdleLanes(Date.now() + 30_000);
      expect(openTaskLanes()).toBe(before + 1);
      dropIdleLanes(Date.now() + 61_000);
      expect(openTaskLanes()).toBe(before);
      // Used again, it takes a lane again; closed, it gives it back.
      await taskDb(connection).all(sql`SELECT count(*) AS n FROM t`);
      expect(openTaskLanes()).toBe(before + 1);
    } finally {
      closeTaskDb(connection.key);
      adopted.close();
    }
    expect(openTaskLanes()).toBe(0);
  });
});
