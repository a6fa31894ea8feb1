import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, createClient, type LibsqlError } from '@libsql/client';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HranaTestServer, startHranaServer } from '../helpers/hrana-server.ts';

// The hosted-libSQL test server held to the protocol by the client the server itself uses.

const TOKEN = 'test-token';
let dir: string;
let hrana: HranaTestServer;
const clients: Client[] = [];

const client = (name: string, intMode: 'number' | 'bigint' = 'number', authToken = TOKEN) => {
  const c = createClient({ url: hrana.url(name), authToken, intMode });
  clients.push(c);
  return c;
};

/** Reads a database file directly, beside the server. */
function fileRows(name: string, sql: string): unknown[] {
  const db = new Database(hrana.dbPath(name));
  try {
    return db.prepare(sql).raw(true).all() as unknown[];
  } finally {
    db.close();
  }
}

async function pipeline(name: string, body: unknown, token = TOKEN): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${hrana.url(name)}v2/pipeline`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: res.headers.get('content-type') === 'application/json' ? JSON.parse(text) : text };
}

const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: LibsqlError) => e.code,
  );

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hrana-'));
  hrana = await startHranaServer({ dir, token: TOKEN, streamIdleMs: 400, txTimeoutMs: 60_000 });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await hrana.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('Hrana test server, against @libsql/client', () => {
  it('round-trips every value type, int64 beyond 2^53 included', async () => {
    const c = client('types', 'bigint');
    await c.execute('CREATE TABLE v (i, x)');
    const blob = new Uint8Array(256).map((_, i) => i);
    const values = [2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n, 0.1, -1.5e300, 'héllo 🌍 ✓ 日本', blob, null];
    for (const [i, x] of values.entries()) await c.execute({ sql: 'INSERT INTO v VALUES (?, ?)', args: [i, x] });
    const rows = (await c.execute('SELECT x, typeof(x) AS t FROM v ORDER BY i')).rows;
    expect(rows.map((r) => r.t)).toEqual(['integer', 'integer', 'integer', 'real', 'real', 'text', 'blob', 'null']);
    expect(rows.slice(0, 6).map((r) => r.x)).toEqual(values.slice(0, 6));
    expect(new Uint8Array(rows[6]?.x as ArrayBuffer)).toEqual(blob);
    expect(rows[7]?.x).toBeNull();
    // A JS number travels as a float, as with sqld: an integral one lands as an integer only through affinity.
    await c.execute({ sql: 'CREATE TABLE n (i INTEGER, r)', args: [] });
    await c.execute({ sql: 'INSERT INTO n VALUES (?, ?)', args: [7, 7] });
    expect((await c.execute('SELECT typeof(i) a, typeof(r) b FROM n')).rows[0]).toMatchObject({
      a: 'integer',
      b: 'real',
    });
    // Named arguments, and intMode number refusing what it cannot hold.
    const named = await c.execute({ sql: 'SELECT :a + 1 AS s, $b AS t', args: { a: 41n, b: 'x' } });
    expect(named.rows[0]).toMatchObject({ s: 42n, t: 'x' });
    await expect(client('types').execute('SELECT x FROM v WHERE i = 0')).rejects.toThrow(RangeError);
  });

  it('returns the inserted rowid and affected counts, and columns with declared types', async () => {
    const c = client('rowid');
    await c.execute('CREATE TABLE r (id INTEGER PRIMARY KEY, name TEXT)');
    const ins = await c.execute({ sql: 'INSERT INTO r (name) VALUES (?), (?)', args: ['a', 'b'] });
    expect(ins.rowsAffected).toBe(2);
    expect(ins.lastInsertRowid).toBe(2n);
    const sel = await c.execute('SELECT id, name FROM r ORDER BY id');
    expect(sel.columnTypes).toEqual(['INTEGER', 'TEXT']);
    expect(sel.rows.map((r) => r.name)).toEqual(['a', 'b']);
  });
});

describe('Hrana test server: batches and their conditions', () => {
  it('runs a batch atomically: a failing statement rolls back the batch', async () => {
    const c = client('batch');
    await c.execute('CREATE TABLE b (k TEXT PRIMARY KEY)');
    const failed = c.batch(
      [
        { sql: 'INSERT INTO b VALUES (?)', args: ['one'] },
        { sql: 'INSERT INTO b VALUES (?)', args: ['one'] },
      ],
      'write',
    );
    await expect(failed).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT' });
    await expect(failed).rejects.toThrow(/SQLite error: UNIQUE constraint failed: b.k/);
    expect(fileRows('batch', 'SELECT k FROM b')).toEqual([]);
    const ok = await c.batch(['INSERT INTO b VALUES (1)', 'INSERT INTO b VALUES (2)', 'SELECT count(*) n FROM b']);
    expect(ok[2]?.rows[0]?.n).toBe(2);
  });

  it('evaluates batch conditions: ok, error, not, and, or, is_autocommit', async () => {
    const stmt = (sql: string) => ({ sql, args: [], want_rows: true });
    const { status, body } = await pipeline('conds', {
      baton: null,
      requests: [
        {
          type: 'batch',
          batch: {
            steps: [
              { stmt: stmt('SELECT 1') },
              { stmt: stmt('SELECT nope') },
              { condition: { type: 'ok', step: 0 }, stmt: stmt('SELECT 2') },
              { condition: { type: 'ok', step: 1 }, stmt: stmt('SELECT 3') },
              { condition: { type: 'error', step: 1 }, stmt: stmt('SELECT 4') },
              {
                condition: {
                  type: 'and',
                  conds: [
                    { type: 'ok', step: 0 },
                    { type: 'not', cond: { type: 'ok', step: 1 } },
                  ],
                },
                stmt: stmt('SELECT 5'),
              },
              {
                condition: {
                  type: 'or',
                  conds: [
                    { type: 'ok', step: 1 },
                    { type: 'ok', step: 3 },
                  ],
                },
                stmt: stmt('SELECT 6'),
              },
              { condition: { type: 'is_autocommit' }, stmt: stmt('SELECT 7') },
            ],
          },
        },
        { type: 'get_autocommit' },
        { type: 'close' },
      ],
    });
    expect(status).toBe(200);
    const { baton, results } = body as { baton: unknown; results: { response: { result: Record<string, unknown> } }[] };
    expect(baton).toBeNull();
    const batch = results[0]?.response.result as { step_results: unknown[]; step_errors: unknown[] };
    expect(batch.step_results.map((r) => r !== null)).toEqual([true, false, true, false, true, true, false, true]);
    expect(batch.step_errors[1]).toMatchObject({
      code: 'SQLITE_ERROR',
      message: expect.stringMatching(/no such column/),
    });
    expect(results[1]?.response).toEqual({ type: 'get_autocommit', is_autocommit: true });
  });
});

describe('Hrana test server: stored SQL, describe, sequence', () => {
  it('stores SQL texts per stream, describes statements and runs sequences', async () => {
    const { body } = await pipeline('seq', {
      baton: null,
      requests: [
        { type: 'sequence', sql: 'CREATE TABLE s (a INTEGER); INSERT INTO s VALUES (1); INSERT INTO s VALUES (2);' },
        { type: 'store_sql', sql_id: 1, sql: 'SELECT sum(a) AS total FROM s WHERE a > ?' },
        { type: 'execute', stmt: { sql_id: 1, args: [{ type: 'integer', value: '0' }] } },
        { type: 'describe', sql_id: 1 },
        { type: 'close_sql', sql_id: 1 },
        { type: 'execute', stmt: { sql_id: 1, args: [] } },
      ],
    }).catch((e) => ({ body: e }));
    // A statement naming a closed SQL id is a protocol error: the whole request fails, as with sqld.
    expect(body).toMatch(/SQL text 1 was not found/);
    const { body: ok } = await pipeline('seq', {
      baton: null,
      requests: [
        { type: 'store_sql', sql_id: 1, sql: 'SELECT sum(a) AS total FROM s WHERE a > ?' },
        { type: 'execute', stmt: { sql_id: 1, args: [{ type: 'integer', value: '0' }] } },
        { type: 'describe', sql_id: 1 },
        { type: 'close' },
      ],
    });
    const results = (ok as { results: { response: { result?: Record<string, unknown> } }[] }).results;
    expect(results[1]?.response.result?.rows).toEqual([[{ type: 'integer', value: '3' }]]);
    expect(results[2]?.response.result).toEqual({
      params: [{ name: null }],
      cols: [{ name: 'total', decltype: null }],
      is_explain: false,
      is_readonly: true,
    });
  });
});

describe('Hrana test server: streams, batons, limits and faults', () => {
  it('carries an interactive transaction across requests with a new baton each time', async () => {
    const c = client('tx');
    await c.execute('CREATE TABLE t (k TEXT PRIMARY KEY)');
    const before = hrana.roundTrips('tx');
    const tx = await c.transaction('write');
    await tx.execute({ sql: 'INSERT INTO t VALUES (?)', args: ['a'] });
    await tx.execute({ sql: 'INSERT INTO t VALUES (?)', args: ['b'] });
    expect((await tx.execute('SELECT count(*) AS n FROM t')).rows[0]?.n).toBe(2);
    // Not visible outside the transaction, nor in the file, until COMMIT.
    expect((await client('tx').execute('SELECT count(*) AS n FROM t')).rows[0]?.n).toBe(0);
    await tx.commit();
    expect(fileRows('tx', 'SELECT k FROM t ORDER BY k')).toEqual([['a'], ['b']]);
    // BEGIN rides with the first statement; the outside read is a request of its own.
    expect(hrana.roundTrips('tx') - before).toBe(5);
    const rolled = await c.transaction('write');
    await rolled.execute("INSERT INTO t VALUES ('c')");
    await rolled.rollback();
    expect(fileRows('tx', 'SELECT count(*) FROM t')).toEqual([[2]]);
    expect(hrana.openStreams).toBe(0);
  });

  it('refuses a reused or forged baton', async () => {
    const first = await pipeline('baton', { baton: null, requests: [{ type: 'execute', stmt: { sql: 'SELECT 1' } }] });
    const baton = (first.body as { baton: string }).baton;
    expect(baton).toEqual(expect.any(String));
    const next = await pipeline('baton', { baton, requests: [] });
    expect(next.status).toBe(200);
    expect((next.body as { baton: string }).baton).not.toBe(baton);
    expect(await pipeline('baton', { baton, requests: [] })).toMatchObject({ status: 400, body: /reused/ });
    expect(await pipeline('baton', { baton: 'forged.1', requests: [] })).toMatchObject({ status: 400 });
  });
});

describe('Hrana test server: writers, idle streams and time limits', () => {
  it('serializes writers per database without blocking: a second write transaction waits for the first', async () => {
    const c = client('writers');
    await c.execute('CREATE TABLE w (k TEXT)');
    const a = await c.transaction('write');
    await a.execute("INSERT INTO w VALUES ('a')");
    const b = c.transaction('write').then(async (tx) => {
      await tx.execute("INSERT INTO w VALUES ('b')");
      await tx.commit();
    });
    await new Promise((r) => setTimeout(r, 100));
    // A reader is not held up meanwhile.
    expect((await c.execute('SELECT count(*) AS n FROM w')).rows[0]?.n).toBe(0);
    await a.commit();
    await b;
    expect(fileRows('writers', 'SELECT k FROM w ORDER BY rowid')).toEqual([['a'], ['b']]);
  });

  it('lets writers waiting for one transaction in one at a time: none finds the lock taken (SQLITE_BUSY)', async () => {
    const c = client('waiters');
    await c.execute('CREATE TABLE w (k TEXT)');
    const held = await c.transaction('write');
    await held.execute("INSERT INTO w VALUES ('held')");
    // Several write transactions queue behind it, each kept open across requests as the
    // server's writer does.
    const waiting = ['b', 'c', 'd'].map((k) =>
      c.transaction('write').then(async (tx) => {
        await tx.execute({ sql: 'INSERT INTO w VALUES (?)', args: [k] });
        await tx.commit();
      }),
    );
    await new Promise((r) => setTimeout(r, 100));
    await held.commit();
    expect(await Promise.all(waiting.map(codeOf))).toEqual(['resolved', 'resolved', 'resolved']);
    expect(fileRows('waiters', 'SELECT k FROM w ORDER BY k')).toEqual([['b'], ['c'], ['d'], ['held']]);
  });

  it('expires a stream left idle, rolling back its transaction and freeing the write lock', async () => {
    const c = client('idle');
    await c.execute('CREATE TABLE i (k TEXT)');
    const tx = await c.transaction('write');
    await tx.execute("INSERT INTO i VALUES ('lost')");
    await new Promise((r) => setTimeout(r, 1_000));
    const late = tx.execute("INSERT INTO i VALUES ('late')");
    await expect(late).rejects.toMatchObject({ code: 'STREAM_EXPIRED' });
    await expect(late).rejects.toThrow(/expired due to inactivity/);
    await c.execute("INSERT INTO i VALUES ('next')");
    expect(fileRows('idle', 'SELECT k FROM i')).toEqual([['next']]);
  });

  it('ends a transaction open past its time limit: later statements fail with TRANSACTION_TIMEOUT', async () => {
    const limited = await startHranaServer({ dir: join(dir, 'limited'), txTimeoutMs: 300 });
    const c = createClient({ url: limited.url('slow') });
    try {
      await c.execute('CREATE TABLE s (k TEXT)');
      const tx = await c.transaction('write');
      await tx.execute("INSERT INTO s VALUES ('too slow')");
      await new Promise((r) => setTimeout(r, 700));
      await expect(tx.execute("INSERT INTO s VALUES ('more')")).rejects.toMatchObject({ code: 'TRANSACTION_TIMEOUT' });
      await expect(codeOf(tx.commit())).resolves.toBe('TRANSACTION_TIMEOUT');
      await c.execute("INSERT INTO s VALUES ('after')");
      const db = new Database(limited.dbPath('slow'));
      expect(db.prepare('SELECT k FROM s').raw(true).all()).toEqual([['after']]);
      db.close();
    } finally {
      c.close();
      await limited.stop();
    }
  });

  it('answers sqld-shaped errors: constraint, parse, bad token, unknown path', async () => {
    const c = client('errors');
    await c.execute('CREATE TABLE e (k TEXT PRIMARY KEY)');
    await c.execute("INSERT INTO e VALUES ('x')");
    const dup = c.execute("INSERT INTO e VALUES ('x')");
    await expect(dup).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT' });
    await expect(codeOf(c.execute('SELEC 1'))).resolves.toBe('SQL_PARSE_ERROR');
    await expect(codeOf(c.execute('SELECT 1; SELECT 2'))).resolves.toBe('SQL_MANY_STATEMENTS');
    const wrong = client('errors', 'number', 'wrong-token').execute('SELECT 1');
    await expect(wrong).rejects.toThrow(/HTTP status 401/);
    const raw = await pipeline('errors', { baton: null, requests: [] }, 'wrong-token');
    expect(raw).toMatchObject({ status: 401, body: { error: expect.stringMatching(/Unauthorized/) } });
    const res = await fetch(`${hrana.origin}/v2/pipeline`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(404);
    expect((await fetch(`${hrana.url('errors')}v2`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
      200,
    );
  });
});

describe('Hrana test server: routing, round trips and faults', () => {
  it('keeps databases apart by path and counts round trips per database', async () => {
    hrana.resetCounts();
    const [a, b] = [client('tenant-a'), client('tenant-b')];
    await a.execute('CREATE TABLE x (v TEXT)');
    await b.execute('CREATE TABLE x (v TEXT)');
    await a.batch(["INSERT INTO x VALUES ('a1')", "INSERT INTO x VALUES ('a2')"]);
    await b.execute("INSERT INTO x VALUES ('b1')");
    expect(fileRows('tenant-a', 'SELECT v FROM x')).toEqual([['a1'], ['a2']]);
    expect(fileRows('tenant-b', 'SELECT v FROM x')).toEqual([['b1']]);
    expect([hrana.roundTrips('tenant-a'), hrana.roundTrips('tenant-b')]).toEqual([2, 2]);
    hrana.latencyMs = 50;
    const started = Date.now();
    await a.execute('SELECT 1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    hrana.latencyMs = 0;
  });

  it('drops connections before or after executing, refuses them, and restarts keeping the files', async () => {
    const c = client('faults');
    await c.execute('CREATE TABLE f (k TEXT)');
    hrana.drop({ when: 'before', match: /^INSERT/ });
    await expect(c.execute("INSERT INTO f VALUES ('never')")).rejects.toThrow(/fetch failed/);
    hrana.drop({ when: 'after', match: /^INSERT/ });
    await expect(c.execute("INSERT INTO f VALUES ('unanswered')")).rejects.toThrow(/fetch failed/);
    expect(fileRows('faults', 'SELECT k FROM f')).toEqual([['unanswered']]);
    await hrana.refuse();
    const refused = await c.execute('SELECT 1').catch((e: Error) => e);
    expect((refused as Error & { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
    await hrana.start();
    const tx = await c.transaction('write');
    await tx.execute("INSERT INTO f VALUES ('in flight')");
    await hrana.restart();
    await expect(tx.execute('SELECT 1')).rejects.toThrow();
    await c.execute("INSERT INTO f VALUES ('after restart')");
    expect(fileRows('faults', 'SELECT k FROM f')).toEqual([['unanswered'], ['after restart']]);
  });
});
