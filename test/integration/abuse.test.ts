import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { dumpWorkspace } from '../helpers/workspace-db.ts';
import { collect, wsClient } from '../helpers/ws.ts';

const WORKSPACE = 'abuse';
const STACK_LINE = /\bat .+\.(ts|js):\d+/;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.gqlOk(
    'mutation { capture(input: { content: "a quiet note about gardens" }) { outcome } }',
    {},
    { workspace: WORKSPACE },
  );
});
afterAll(async () => {
  await t?.stop();
});

const nested = (depth: number) => {
  let q = 'id';
  for (let i = 0; i < depth; i++) q = `connections { entry { ${q} } }`;
  return `{ recent(n: 1) { ${q} } }`;
};

/** Each abusive operation, with what it must be rejected as. */
const CORPUS: { name: string; query: string; variables?: Record<string, unknown>; codes: string[] }[] = [
  { name: 'depth 50', query: nested(25), codes: ['GRAPHQL_VALIDATION_FAILED'] },
  {
    name: '1,000 aliases',
    query: `{ ${Array.from({ length: 1_000 }, (_, i) => `a${i}: count`).join(' ')} }`,
    codes: ['GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED'],
  },
  {
    name: '10,000 tokens',
    query: `{ recent(n: 1) { ${Array.from({ length: 5_000 }, () => 'id').join(' ')} } }`,
    codes: ['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED'],
  },
  {
    name: 'recursive fragments',
    query:
      'query { recent { ...A } } fragment A on Entry { connections { entry { ...B } } } fragment B on Entry { connections { entry { ...A } } }',
    codes: ['GRAPHQL_VALIDATION_FAILED'],
  },
  { name: 'typo’d field', query: '{ recnet { id } }', codes: ['GRAPHQL_VALIDATION_FAILED'] },
  {
    name: 'topK 1e9',
    query: '{ recall(query: "gardens", topK: 1000000000) { hits { snippet } } }',
    codes: ['GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT'],
  },
  {
    name: 'hops 1e9',
    query: '{ recall(query: "gardens", hops: 1000000000) { hits { snippet } } }',
    codes: ['GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT'],
  },
  {
    name: '200 KB content',
    query: 'mutation($c: String!) { capture(input: { content: $c }) { outcome } }',
    variables: { c: 'x'.repeat(200_000) },
    codes: ['BAD_USER_INPUT'],
  },
  {
    name: '200 KB query string',
    query: 'query($q: String!) { recall(query: $q) { hits { snippet } } }',
    variables: { q: 'garden '.repeat(30_000) },
    codes: ['BAD_USER_INPUT'],
  },
  { name: 'invalid enum literal', query: '{ count(kind: ROBOT) }', codes: ['GRAPHQL_VALIDATION_FAILED'] },
  {
    name: 'invalid enum variable',
    query: 'query($k: EntryKind) { count(kind: $k) }',
    variables: { k: 'ROBOT' },
    codes: ['BAD_USER_INPUT'],
  },
  {
    name: 'invalid date',
    query: 'mutation { capture(input: { content: "dated", observedAt: "yesterday-ish" }) { outcome } }',
    codes: ['BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED'],
  },
  {
    name: 'impossible date variable',
    query: 'query($d: DateTime) { recall(query: "gardens", asOf: $d) { hits { snippet } } }',
    variables: { d: '2026-02-30T00:00:00Z' },
    codes: ['BAD_USER_INPUT'],
  },
];

/** FTS5 syntax as user text: it must be searched as words, never fail. */
const FTS_INPUTS = ['"', '*', 'NEAR(', 'content:x', 'AND (', '-', 'gardens OR "quiet', '^gardens', '{content}: x'];

function expectClearRejection(name: string, errors: unknown, codes: string[]) {
  const text = JSON.stringify(errors);
  const list = (errors as { extensions?: { code?: string } }[] | undefined) ?? [];
  expect(list.length, name).toBeGreaterThan(0);
  expect(codes, `${name}: ${text.slice(0, 300)}`).toContain(list[0]?.extensions?.code);
  expect(text, name).not.toMatch(STACK_LINE);
  expect(text, name).not.toMatch(/Did you mean/);
}

describe('the contract’s floor', () => {
  it('never rejects depth 8, 15 aliases, ~2,000 tokens and 100 fields per selection set with arguments in range', async () => {
    // Lists count at their size: nested connections at their default (50) would multiply
    // past the cost limit under 14 recalls, so they ask for a graph walk's fanout.
    const deep = 'hits { entry { connections(first: 8) { entry { connections(first: 8) { entry { id tags } } } } } } }';
    const aliases = Array.from(
      { length: 14 },
      (_, i) => `r${i}: recall(query: "gardens", topK: 50, hops: 3) { ${deep}`,
    );
    // 100 fields in one selection set (repeated names merge; no more aliases needed).
    const wide = Array.from({ length: 100 }, (_, i) => ['seq', 'type', 'at', 'entryId', 'outcome'][i % 5]).join(' ');
    const entryWide = Array.from({ length: 100 }, (_, i) => ['id', 'content', 'kind', 'tags', 'freshness'][i % 5]).join(
      ' ',
    );
    const doc = `{ ${aliases.join(' ')} log: eventLog(limit: 1000) { ${wide} entry { ${entryWide} } } recent(n: 200) { ${entryWide} } brief { recent { ${entryWide} } important { ${entryWide} } stale { ${entryWide} } } }`;
    const tokens = doc.match(/[A-Za-z_][A-Za-z0-9_]*|\d+|"[^"]*"|[{}():]/g)?.length ?? 0;
    expect(tokens).toBeGreaterThan(1_000);
    expect(tokens).toBeLessThanOrEqual(2_000);
    const floor = 'abuse-floor';
    await t.gqlOk(
      'mutation { capture(input: { content: "a quiet note about gardens" }) { outcome } }',
      {},
      { workspace: floor },
    );
    const res = await t.gql(doc, {}, { workspace: floor });
    expect(res.errors).toBeUndefined();
    expect(res.data?.r0.hits).toHaveLength(1);
  });
});

describe('abuse corpus', () => {
  it('rejects each case over HTTP with a clear error, never a 500, and changes nothing', async () => {
    const before = await dumpWorkspace(t.dbPath(WORKSPACE));
    for (const c of CORPUS) {
      const res = await t.gql(c.query, c.variables, { workspace: WORKSPACE });
      expect(res.status, c.name).toBeLessThan(500);
      expectClearRejection(c.name, res.errors, c.codes);
    }
    expect(await dumpWorkspace(t.dbPath(WORKSPACE))).toEqual(before);
    expect((await t.gql('{ count }', {}, { workspace: WORKSPACE })).data?.count).toBe(1);
  });

  it('rejects each case over WebSocket the same way, and the connection stays usable', async () => {
    const before = await dumpWorkspace(t.dbPath(WORKSPACE));
    const client = wsClient(t.wsUrl, { workspace: WORKSPACE });
    for (const c of CORPUS) {
      const r = collect(client, c.query, c.variables ?? {}, (d) => d);
      await r.until(() => r.errors.length > 0 || r.completed);
      const errors = (r.errors[0] as unknown[] | undefined) ?? r.errors;
      expectClearRejection(`ws ${c.name}`, Array.isArray(errors) ? errors : [errors], c.codes);
    }
    const ok = collect(client, '{ count }', {}, (d) => d);
    await ok.until((xs) => xs.length > 0);
    expect(ok.items[0]).toEqual({ count: 1 });
    await client.dispose();
    expect(await dumpWorkspace(t.dbPath(WORKSPACE))).toEqual(before);
  });

  it('searches FTS5 operators as words and never errors', async () => {
    for (const q of FTS_INPUTS) {
      const res = await t.gql(
        'query($q: String!) { recall(query: $q) { hits { snippet } queryUsed } }',
        { q },
        { workspace: WORKSPACE },
      );
      expect(res.errors, q).toBeUndefined();
    }
    const cap = await t.gql(
      'mutation($c: String!) { capture(input: { content: $c }) { outcome } }',
      { c: 'NEAR( "x" * -y' },
      { workspace: 'abuse-fts' },
    );
    expect(cap.errors).toBeUndefined();
    const found = await t.gql('{ recall(query: "NEAR(") { hits { snippet } } }', {}, { workspace: 'abuse-fts' });
    expect(found.data?.recall.hits[0]?.snippet).toContain('NEAR(');
  });

  it('refuses a 10 MB body and a body without a length, and keeps serving', async () => {
    const big = await fetch(t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-workspace': WORKSPACE },
      body: JSON.stringify({ query: '{ count }', variables: { pad: 'x'.repeat(10 * 1024 * 1024) } }),
    }).catch((e: Error) => e);
    if (!(big instanceof Error)) {
      expect(big.status).toBe(413);
      expect(JSON.stringify(await big.json())).toContain('BAD_USER_INPUT');
    }
    const chunked = await fetch(t.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"query":"{ count }"}'));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(411);
    expect((await t.gql('{ count }', {}, { workspace: WORKSPACE })).data?.count).toBe(1);
  });

  it('closes a socket that sends a 2 MB frame, and other sockets keep working', async () => {
    const logged = vi.spyOn(console, 'error');
    const socket = new WebSocket(t.wsUrl, 'graphql-transport-ws');
    await new Promise((r) => socket.once('open', r));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { workspace: WORKSPACE } }));
    await new Promise((r) => socket.once('message', r));
    const closed = new Promise<number>((r) => socket.once('close', (code) => r(code)));
    socket.send(
      JSON.stringify({ id: '1', type: 'subscribe', payload: { query: `{ count } # ${'x'.repeat(2 * 1024 * 1024)}` } }),
    );
    expect(await closed).toBe(1009);
    // A client's oversized frame is not a server fault: nothing is logged as one.
    expect(logged.mock.calls.map((c) => String(c[0]))).toEqual([]);
    logged.mockRestore();

    const client = wsClient(t.wsUrl, { workspace: WORKSPACE });
    const ok = collect(client, '{ count }', {}, (d) => d);
    await ok.until((xs) => xs.length > 0);
    expect(ok.items[0]).toEqual({ count: 1 });
    await client.dispose();
  });
});

describe('the cost of variables', () => {
  const doc = (n: string, f: string) =>
    `query($n: Int${n}, $f: Int${f}) { recent(n: $n) { connections(first: $f) { entry { connections(first: $f) { entry { id } } } } } }`;

  it('counts defaults as sent values and literals: 200 × 200 × 200 is refused however it is written', async () => {
    const inline = await t.gql(
      '{ recent(n: 200) { connections(first: 200) { entry { connections(first: 200) { entry { id } } } } } }',
      {},
      { workspace: WORKSPACE },
    );
    const sent = await t.gql(doc('', ''), { n: 200, f: 200 }, { workspace: WORKSPACE });
    const defaults = await t.gql(doc(' = 200', ' = 200'), {}, { workspace: WORKSPACE });
    for (const res of [inline, sent, defaults]) {
      expectClearRejection('200 × 200 × 200', res.errors, ['GRAPHQL_VALIDATION_FAILED']);
      expect(res.errors?.[0]?.message).toMatch(/cost limit/);
    }
    // A sent value wins over its default, and small defaults run.
    expect((await t.gql(doc(' = 200', ' = 200'), { f: 2 }, { workspace: WORKSPACE })).errors).toBeUndefined();
    expect((await t.gql(doc(' = 200', ' = 2'), {}, { workspace: WORKSPACE })).errors).toBeUndefined();
  });

  it('estimates the bytes of entry text: 30 aliases of recent(n: 200) { content } are refused before a row is read', async () => {
    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: recent(n: 200) { content }`).join(' ');
    t.resetQueries();
    const res = await t.gql(`{ ${aliases} }`, {}, { workspace: WORKSPACE });
    expectClearRejection('30 × recent(n: 200) { content }', res.errors, ['RESPONSE_TOO_LARGE']);
    expect(t.queries.filter((q) => /from "entries"/i.test(q))).toEqual([]);
  });
});
