import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { collect, wsClient } from '../helpers/ws.ts';

/**
 * A mutation document never commits more than it reports: one that cannot run whole (its
 * writes are past the rate limit, or one of its fields has bad input) writes nothing.
 */

const LIMIT = 10;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ config: { rateLimit: LIMIT } });
});
afterAll(async () => {
  await t?.stop();
});

const capture = (ws: string, i: number) => `capture(input: { content: "${ws} note ${i}" }) { outcome }`;

/** `n` aliased captures: the first half inline, the rest through a fragment on Mutation. */
function captures(ws: string, n: number, from = 0): string {
  const fields = Array.from({ length: n }, (_, i) => `c${from + i}: ${capture(ws, from + i)}`);
  const half = Math.ceil(n / 2);
  return `mutation { ${fields.slice(0, half).join(' ')} ...More } fragment More on Mutation { ${fields.slice(half).join(' ')} __typename }`;
}

async function count(ws: string): Promise<number> {
  return (await t.gqlOk('{ count }', {}, { workspace: ws })).count;
}

function outcomes(data: Record<string, unknown>): string[] {
  return Object.values(data).flatMap((v) => (v && typeof v === 'object' && 'outcome' in v ? [String(v.outcome)] : []));
}

describe('the write quota is taken for the whole document at once', () => {
  it(`refuses 30 captures over a limit of ${LIMIT} whole, then takes a document within it`, async () => {
    const ws = 'quota-http';
    const refused = await t.gql(captures(ws, 30), {}, { workspace: ws });
    expect(refused.status).toBe(429);
    expect(refused.data ?? null).toBeNull();
    expect(refused.errors?.map((e) => e.extensions?.code)).toEqual(['RATE_LIMITED']);
    expect(await count(ws)).toBe(0);

    // Nothing was taken from the bucket either: the whole limit is still there.
    const ok = await t.gqlOk(captures(ws, LIMIT, 100), {}, { workspace: ws });
    expect(outcomes(ok)).toEqual(Array(LIMIT).fill('STORED'));
    expect(await count(ws)).toBe(LIMIT);

    const spent = await t.gql(captures(ws, 2, 200), {}, { workspace: ws });
    expect(spent.status).toBe(429);
    expect(spent.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(await count(ws)).toBe(LIMIT);
  });

  it('refuses the same way over WebSocket', async () => {
    const ws = 'quota-ws';
    const client = wsClient(t.wsUrl, { workspace: ws });
    try {
      const refused = collect(client, captures(ws, 30), {}, (d) => d);
      await refused.until(() => refused.errors.length > 0 || refused.completed);
      expect(refused.items).toEqual([]);
      expect(JSON.stringify(refused.errors)).toContain('RATE_LIMITED');
      expect(await count(ws)).toBe(0);

      const ok = collect(client, captures(ws, LIMIT, 100), {}, (d) => d);
      await ok.until((xs) => xs.length > 0);
      expect(outcomes(ok.items[0] as Record<string, unknown>)).toEqual(Array(LIMIT).fill('STORED'));
      expect(await count(ws)).toBe(LIMIT);
    } finally {
      await client.dispose();
    }
  });

  it('a field that fails nulls only itself: the writes after it run and report', async () => {
    const ws = 'quota-refund';
    // The append fails (NOT_FOUND) at its own path; the nine captures after it still run.
    const doc = `mutation { a: append(input: { id: "missing", addition: "more" }) { entry { id } } ${Array.from(
      { length: LIMIT - 1 },
      (_, i) => `c${i}: ${capture(ws, i)}`,
    ).join(' ')} }`;
    const res = await t.gql(doc, {}, { workspace: ws });
    expect(res.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['a'], 'NOT_FOUND']]);
    expect(res.data?.a).toBeNull();
    expect(outcomes({ ...res.data, a: undefined })).toEqual(Array(LIMIT - 1).fill('STORED'));
    expect(await count(ws)).toBe(LIMIT - 1);
  });
});

describe('bad input in one field refuses the whole document before any write', () => {
  const cases: { name: string; field: string }[] = [
    { name: 'empty content', field: 'capture(input: { content: "   " }) { outcome }' },
    { name: 'importance out of range', field: 'capture(input: { content: "x", importance: 2 }) { outcome }' },
    {
      name: 'too many tags',
      field: `capture(input: { content: "x", tags: ${JSON.stringify(Array.from({ length: 33 }, (_, i) => `t${i}`))} }) { outcome }`,
    },
    { name: 'a self-link', field: 'link(input: { src: "same", dst: "same", type: RELATES_TO }) { edge { weight } }' },
    {
      name: 'a zero weight',
      field: 'link(input: { src: "a", dst: "b", type: RELATES_TO, weight: 0 }) { edge { weight } }',
    },
    { name: 'an empty addition', field: 'append(input: { id: "whatever", addition: " " }) { entry { id } }' },
    { name: 'empty new content', field: 'update(input: { id: "whatever", content: "" }) { entry { id } }' },
  ];

  it('for each kind of bad input, with good captures before and after it', async () => {
    const ws = 'quota-input';
    for (const c of cases) {
      const doc = `mutation { first: ${capture(ws, 1)} bad: ${c.field} last: ${capture(ws, 2)} }`;
      const res = await t.gql(doc, {}, { workspace: ws });
      expect(res.data ?? null, c.name).toBeNull();
      expect(
        res.errors?.map((e) => [e.extensions?.code, e.path]),
        c.name,
      ).toEqual([['BAD_USER_INPUT', ['bad']]]);
      expect(await count(ws), c.name).toBe(0);
    }
    // None of it spent the quota: a full document still goes through.
    const ok = await t.gqlOk(captures(ws, LIMIT), {}, { workspace: ws });
    expect(outcomes(ok)).toHaveLength(LIMIT);
  });

  it('reports every bad field, through variables and fragments too', async () => {
    const ws = 'quota-input-vars';
    const doc = `mutation($empty: String!, $weight: Float) {
      ok: ${capture(ws, 1)}
      ...Bad
    }
    fragment Bad on Mutation {
      b1: capture(input: { content: $empty }) { outcome }
      b2: link(input: { src: "a", dst: "b", type: RELATES_TO, weight: $weight }) { edge { weight } }
    }`;
    const res = await t.gql(doc, { empty: '  ', weight: 1.5 }, { workspace: ws });
    expect(res.data ?? null).toBeNull();
    expect(res.errors?.map((e) => e.path)).toEqual([['b1'], ['b2']]);
    expect(res.errors?.every((e) => e.extensions?.code === 'BAD_USER_INPUT')).toBe(true);
    expect(await count(ws)).toBe(0);
    // Skipped fields are not run, so they are not checked.
    const skipped = await t.gqlOk(
      `mutation($skip: Boolean!) { ok: ${capture(ws, 1)} bad: capture(input: { content: "" }) @skip(if: $skip) { outcome } }`,
      { skip: true },
      { workspace: ws },
    );
    expect(skipped.ok.outcome).toBe('STORED');
    expect(await count(ws)).toBe(1);
  });
});
