import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READS_AT_ONCE } from '../../src/graphql/read-budget.ts';
import { type Data, startTestServer, type TestServer } from '../helpers/server.ts';
import { collect, wsClient } from '../helpers/ws.ts';

/**
 * No answer is unbounded: the lists under an entry and the workspace's tag list are pages of
 * `first` items, the cost rule counts them at that size, and an answer past the configured
 * response cap is refused with RESPONSE_TOO_LARGE before it is serialized, on every path.
 */

const CAP = 2_000_000;
const BIG = 100_000;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ config: { maxResponseBytes: CAP } });
});
afterAll(async () => {
  await t?.stop();
});

/** One mutation document of aliased fields, `a0` … `aN`. */
const aliased = (fields: string[]) => `mutation { ${fields.map((f, i) => `a${i}: ${f}`).join(' ')} }`;

async function captureIds(workspace: string, contents: string[], extra = ''): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < contents.length; i += 20) {
    const chunk = contents.slice(i, i + 20);
    const data = await t.gqlOk(
      `mutation(${chunk.map((_, j) => `$c${j}: String!`).join(', ')}) { ${chunk
        .map((_, j) => `a${j}: capture(input: { content: $c${j} ${extra} }) { entry { id } }`)
        .join(' ')} }`,
      Object.fromEntries(chunk.map((c, j) => [`c${j}`, c])),
      { workspace },
    );
    for (let j = 0; j < chunk.length; j++) ids.push(data[`a${j}`].entry.id);
  }
  return ids;
}

function expectCode(res: { status: number; errors?: { extensions?: { code?: string } }[] }, code: string) {
  expect(res.status).toBeLessThan(500);
  expect(res.errors?.[0]?.extensions?.code, JSON.stringify(res.errors)?.slice(0, 300)).toBe(code);
}

describe('revisions take first (default 50, at most 200)', () => {
  const ws = 'bounds-revisions';
  let id: string;
  beforeAll(async () => {
    [id] = (await captureIds(ws, ['v0'])) as [string];
    for (let round = 0; round < 2; round++) {
      const fields = Array.from(
        { length: 30 },
        (_, i) => `update(input: { id: "${id}", content: "v${round * 30 + i + 1}" }) { entry { id } }`,
      );
      await t.gqlOk(aliased(fields), {}, { workspace: ws });
    }
  });

  it('gives the oldest 50 by default, as many as asked up to 200, and refuses more', async () => {
    const q = (args: string) => `{ entry(id: "${id}") { revisions${args} { content } } }`;
    const byDefault = await t.gqlOk(q(''), {}, { workspace: ws });
    expect(byDefault.entry.revisions.map((r: { content: string }) => r.content)).toEqual(
      Array.from({ length: 50 }, (_, i) => `v${i}`),
    );
    expect((await t.gqlOk(q('(first: 60)'), {}, { workspace: ws })).entry.revisions).toHaveLength(60);
    expect((await t.gqlOk(q('(first: 200)'), {}, { workspace: ws })).entry.revisions).toHaveLength(60);
    expect((await t.gqlOk(q('(first: 2)'), {}, { workspace: ws })).entry.revisions).toEqual([
      { content: 'v0' },
      { content: 'v1' },
    ]);
    expectCode(await t.gql(q('(first: 201)'), {}, { workspace: ws }), 'BAD_USER_INPUT');
    expectCode(await t.gql(q('(first: 0)'), {}, { workspace: ws }), 'BAD_USER_INPUT');
  });

  it('counts them at their size: fifteen pages of 200 revisions under recent(n: 200) are too costly', async () => {
    const doc = (first: string) =>
      `{ ${Array.from({ length: 15 }, (_, i) => `r${i}: recent(n: 200) { revisions${first} { content op at } }`).join(' ')} }`;
    const refused = await t.gql(doc('(first: 200)'), {}, { workspace: ws });
    expectCode(refused, 'GRAPHQL_VALIDATION_FAILED');
    expect(refused.errors?.[0]?.message).toMatch(/cost/);
    // Without content: every content of 50 revisions under 200 entries, at 100,000
    // characters each, could pass the cap on estimated bytes however short they really are.
    const fine = await t.gqlOk(doc('').replaceAll('content ', ''), {}, { workspace: ws });
    expect(fine.r0[0].revisions).toHaveLength(50);
    expectCode(await t.gql(doc(''), {}, { workspace: ws }), 'RESPONSE_TOO_LARGE');
  });
});

describe('connections take first (default 50, at most 200)', () => {
  const ws = 'bounds-connections';
  let hub: string;
  beforeAll(async () => {
    const ids = await captureIds(
      ws,
      Array.from({ length: 61 }, (_, i) => `node ${i}`),
    );
    hub = ids[0]!;
    const others = ids.slice(1);
    for (let i = 0; i < others.length; i += 30) {
      const fields = others
        .slice(i, i + 30)
        .map(
          (other, j) =>
            `link(input: { src: "${hub}", dst: "${other}", type: RELATES_TO, weight: ${((i + j + 1) / 100).toFixed(2)} }) { edge { weight } }`,
        );
      await t.gqlOk(aliased(fields), {}, { workspace: ws });
    }
  });

  it('gives the heaviest 50 by default, as many as asked up to 200, and refuses more', async () => {
    const q = (args: string) => `{ entry(id: "${hub}") { connections${args} { edge { weight } } } }`;
    const weights = (d: Data) => d.entry.connections.map((c: { edge: { weight: number } }) => c.edge.weight);
    expect(weights(await t.gqlOk(q(''), {}, { workspace: ws }))).toEqual(
      Array.from({ length: 50 }, (_, i) => Number(((60 - i) / 100).toFixed(2))),
    );
    expect(weights(await t.gqlOk(q('(first: 3)'), {}, { workspace: ws }))).toEqual([0.6, 0.59, 0.58]);
    expect(weights(await t.gqlOk(q('(first: 200)'), {}, { workspace: ws }))).toHaveLength(60);
    expect(
      weights(await t.gqlOk(q('(type: RELATES_TO, direction: OUT, first: 55)'), {}, { workspace: ws })),
    ).toHaveLength(55);
    expectCode(await t.gql(q('(first: 201)'), {}, { workspace: ws }), 'BAD_USER_INPUT');
    expectCode(await t.gql(q('(first: 0)'), {}, { workspace: ws }), 'BAD_USER_INPUT');
  });

  it('bounds the root connections(id) the same way', async () => {
    const q = (args: string) => `{ connections(id: "${hub}"${args}) { direction } }`;
    expect((await t.gqlOk(q(''), {}, { workspace: ws })).connections).toHaveLength(50);
    expect((await t.gqlOk(q(', first: 60'), {}, { workspace: ws })).connections).toHaveLength(60);
    expectCode(await t.gql(q(', first: 201'), {}, { workspace: ws }), 'BAD_USER_INPUT');
  });

  it('counts them at their size: connections nested at their default under recent(n: 200) are too costly', async () => {
    const refused = await t.gql(
      '{ recent(n: 200) { connections { entry { connections { entry { id } } } } } }',
      {},
      { workspace: ws },
    );
    expectCode(refused, 'GRAPHQL_VALIDATION_FAILED');
    expect(refused.errors?.[0]?.message).toMatch(/cost/);
    const fine = await t.gqlOk(
      '{ recent(n: 200) { connections(first: 5) { entry { connections(first: 5) { entry { id } } } } } }',
      {},
      { workspace: ws },
    );
    expect(fine.recent).toHaveLength(61);
  });
});

describe('the root tags list takes first (default 1,000, at most 10,000)', () => {
  const ws = 'bounds-tags';
  beforeAll(async () => {
    // 33 entries of 32 distinct tags each: 1,056 tags, every one on a single entry.
    const tags = (i: number) => `[${Array.from({ length: 32 }, (_, j) => `"t${i}-${j}"`).join(', ')}]`;
    const fields = Array.from(
      { length: 33 },
      (_, i) => `capture(input: { content: "tagged ${i}", tags: ${tags(i)} }) { outcome }`,
    );
    await t.gqlOk(aliased(fields.slice(0, 20)), {}, { workspace: ws });
    await t.gqlOk(aliased(fields.slice(20)), {}, { workspace: ws });
  });

  it('gives 1,000 by default, as many as asked up to 10,000, and refuses more', async () => {
    const q = (args: string) => `{ tags${args} { tag count } }`;
    expect((await t.gqlOk(q(''), {}, { workspace: ws })).tags).toHaveLength(1_000);
    expect((await t.gqlOk(q('(first: 10000)'), {}, { workspace: ws })).tags).toHaveLength(1_056);
    expect((await t.gqlOk(q('(first: 2)'), {}, { workspace: ws })).tags).toEqual([
      { tag: 't0-0', count: 1 },
      { tag: 't0-1', count: 1 },
    ]);
    expectCode(await t.gql(q('(first: 10001)'), {}, { workspace: ws }), 'BAD_USER_INPUT');
    expectCode(await t.gql(q('(first: 0)'), {}, { workspace: ws }), 'BAD_USER_INPUT');
  });

  it('counts it at its size', async () => {
    const fields = Array.from({ length: 10 }, () => 'tag count').join(' ');
    const doc = (first: string) =>
      `{ ${Array.from({ length: 6 }, (_, i) => `t${i}: tags${first} { ${fields} }`).join(' ')} }`;
    const refused = await t.gql(doc('(first: 10000)'), {}, { workspace: ws });
    expectCode(refused, 'GRAPHQL_VALIDATION_FAILED');
    expect(refused.errors?.[0]?.message).toMatch(/cost/);
    expect((await t.gqlOk(doc(''), {}, { workspace: ws })).t0).toHaveLength(1_000);
  });
});

describe(`answers larger than the cap (${CAP} bytes) are refused with RESPONSE_TOO_LARGE`, () => {
  const ws = 'bounds-big';
  // Ten entries of 100,000 characters: 1 MB of content, three times over in three aliases.
  const huge = `{ ${['a', 'b', 'c'].map((a) => `${a}: recent(n: 10) { id content }`).join(' ')} }`;
  const normal = '{ recent(n: 10) { id content } }';
  beforeAll(async () => {
    await captureIds(
      ws,
      Array.from({ length: 10 }, (_, i) => `big ${i} `.padEnd(BIG, 'lorem ipsum ')),
    );
  });

  async function expectHealthy() {
    const health = await fetch(`${t.origin}/health`);
    expect(health.status).toBe(200);
    expect((await t.gqlOk(normal, {}, { workspace: ws })).recent).toHaveLength(10);
  }

  it('recall reads long texts only as far as it ranks them, and shows them whole where asked', async () => {
    // The matched word lies past the first 24,000 characters recall reads of a candidate.
    const [id] = await captureIds('bounds-long', [
      `kingfisher report `.padEnd(60_000, 'lorem ipsum ') + 'the heron tail '.padEnd(BIG - 60_000, 'dolor sit '),
    ]);
    const q =
      'query($full: Boolean) { recall(query: "kingfisher heron", full: $full) { hits { entry { id content } snippet truncated } usedChars budgetChars } }';
    const { recall } = await t.gqlOk(q, { full: false }, { workspace: 'bounds-long' });
    const [hit] = recall.hits;
    expect(hit.entry.id).toBe(id);
    expect(hit.entry.content).toHaveLength(BIG);
    expect(hit.entry.content).toContain('the heron tail');
    expect(hit.truncated).toBe(true);
    expect(hit.snippet.length).toBeLessThanOrEqual(4_000);
    expect(hit.snippet.startsWith('kingfisher report')).toBe(true);
    expect(hit.snippet.endsWith('…')).toBe(true);
    expect(recall.usedChars).toBe(hit.snippet.length);
    const full = (await t.gqlOk(q, { full: true }, { workspace: 'bounds-long' })).recall;
    expect(full.budgetChars).toBeNull();
    expect(full.hits[0].snippet).toBe(hit.entry.content);
    expect(full.hits[0].truncated).toBe(false);
    expect(full.usedChars).toBe(BIG);
  });

  it('over a plain JSON POST, while a normal answer of 1 MB still comes whole', async () => {
    const whole = await t.gqlOk(normal, {}, { workspace: ws });
    expect(whole.recent.map((e: { content: string }) => e.content.length)).toEqual(Array(10).fill(BIG));
    const res = await t.gql(huge, {}, { workspace: ws });
    expect(res.status).toBe(200);
    expectCode(res, 'RESPONSE_TOO_LARGE');
    expect(res.data).toBeNull();
    expect(res.errors).toHaveLength(1);
    await expectHealthy();
  });

  it('stops reading once the reads pass the cap, not after reading everything asked', async () => {
    // Fifteen reads of 1 MB each: within the estimate (15 MB of at most 32), over the cap at the second.
    const many = `{ ${Array.from({ length: 15 }, (_, i) => `r${i}: recent(n: 10) { id content }`).join(' ')} }`;
    t.resetQueries();
    const res = await t.gql(many, {}, { workspace: ws });
    expectCode(res, 'RESPONSE_TOO_LARGE');
    expect(res.data).toBeNull();
    const reads = t.queries.filter((q) => /^select .* from entries e order by/i.test(q));
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.length).toBeLessThanOrEqual(READS_AT_ONCE + 1);
    await expectHealthy();
  });

  it('counts the contents it reads only when the operation answers them', async () => {
    // The same fifteen reads of 1 MB each, answering ids only: nothing near the cap.
    const ids = `{ ${Array.from({ length: 15 }, (_, i) => `r${i}: recent(n: 10) { id }`).join(' ')} }`;
    const data = await t.gqlOk(ids, {}, { workspace: ws });
    expect(Object.keys(data)).toHaveLength(15);
    expect(data.r14).toHaveLength(10);
  });

  it('for a mutation, saying that its write was made', async () => {
    const mws = 'bounds-big-mutation';
    const before = (await t.gqlOk('{ count }', {}, { workspace: mws })).count;
    const contents = Array.from({ length: 25 }, (_, i) => `c${i}: content`).join(' ');
    const res = await t.gql(
      `mutation($c: String!) { capture(input: { content: $c }) { outcome entry { ${contents} } } }`,
      { c: 'written anyway '.padEnd(BIG, 'dolor sit ') },
      { workspace: mws },
    );
    expectCode(res, 'RESPONSE_TOO_LARGE');
    expect(res.errors?.[0]?.message).toMatch(/writes were made/);
    expect((await t.gqlOk('{ count }', {}, { workspace: mws })).count).toBe(before + 1);
  });

  it('over Yoga’s own handling (GET)', async () => {
    const res = await fetch(`${t.url}?query=${encodeURIComponent(huge)}`, {
      headers: { accept: 'application/graphql-response+json', 'x-workspace': ws },
    });
    const text = await res.text();
    expect(text.length).toBeLessThan(10_000);
    const body = JSON.parse(text);
    expectCode({ status: res.status, errors: body.errors }, 'RESPONSE_TOO_LARGE');
    await expectHealthy();
  });

  it('over WebSocket, and the connection stays usable', async () => {
    const client = wsClient(t.wsUrl, { workspace: ws });
    try {
      const refused = collect(client, huge, {}, (d) => d);
      await refused.until(() => refused.errors.length > 0 || refused.completed);
      expect(refused.items).toEqual([]);
      expect(JSON.stringify(refused.errors)).toContain('RESPONSE_TOO_LARGE');
      const ok = collect(client, normal);
      await ok.until((xs) => xs.length > 0);
      expect(ok.items[0]).toHaveLength(10);
    } finally {
      await client.dispose();
    }
    await expectHealthy();
  });

  it('for a subscription event, over WebSocket and server-sent events', async () => {
    // The hub's ten big neighbours, three times over: 3 MB in each LINKED event's answer. A
    // RELATES_TO edge runs from the smaller id, so the hub (captured last) may be either end.
    const end = 'connections { entry { a: content b: content c: content } }';
    const sub = `subscription { linked { edge { source { ${end} } target { ${end} } } } }`;
    const [hub] = await captureIds(ws, ['the hub']);
    const recent = await t.gqlOk('{ recent(n: 11) { id content } }', {}, { workspace: ws });
    const bigIds = (recent.recent as { id: string; content: string }[])
      .filter((e) => e.content.length === BIG)
      .map((e) => e.id);
    expect(bigIds).toHaveLength(10);
    const link = (ids: string[]) =>
      aliased(ids.map((id) => `link(input: { src: "${hub}", dst: "${id}", type: RELATES_TO }) { edge { weight } }`));
    await t.gqlOk(link(bigIds.slice(0, 9)), {}, { workspace: ws });

    // A subscription of an earlier test ends on the server a moment after its client is gone:
    // counted in the baseline and dropped meanwhile, it would pass for one of these two, and
    // the link below would run before the other listened (it then never gets the event).
    const drained = Date.now() + 20_000;
    while (t.server.bus.listeners > 0 && Date.now() < drained) await new Promise((r) => setTimeout(r, 5));
    const listening = t.server.bus.listeners;
    const client = wsClient(t.wsUrl, { workspace: ws });
    const viaWs = collect(client, sub, {}, (d) => d);
    const controller = new AbortController();
    try {
      const sse = await fetch(t.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-workspace': ws },
        body: JSON.stringify({ query: sub }),
        signal: controller.signal,
      });
      expect(sse.status).toBe(200);
      // Both subscriptions are live once the event bus holds a listener for each.
      const deadline = Date.now() + 20_000;
      while (t.server.bus.listeners < listening + 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(t.server.bus.listeners).toBe(listening + 2);
      await t.gqlOk(link(bigIds.slice(9)), {}, { workspace: ws });

      await viaWs.until(() => viaWs.errors.length > 0 || viaWs.items.length > 0, 20_000);
      expect(viaWs.items).toEqual([]);
      expect(JSON.stringify(viaWs.errors)).toContain('RESPONSE_TOO_LARGE');

      const reader = (sse.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (!/^data: .*$/m.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      const event = JSON.parse(text.match(/^data: (.*)$/m)?.[1] ?? '{}');
      expect(event.data ?? null).toBeNull();
      expect(event.errors?.[0]?.extensions?.code).toBe('RESPONSE_TOO_LARGE');
    } finally {
      controller.abort();
      await client.dispose();
    }
    await expectHealthy();
  });
});
