import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE } from '../helpers/operations.ts';
import { freshWorkspace, startTestServer, type TestServer } from '../helpers/server.ts';

// U+FDFA is one character that NFKD expands to eighteen, four words long: a whole entry of it
// is the most text one capture can make the server normalize.
const longWord = (i: number) => `yyy ${'\uFDFA'.repeat(99_990)} ${i}`;
const ENTRIES = 30;
/**
 * Generous on purpose: the budget is 250 ms per request and a busy test machine adds noise,
 * while a recall that normalizes these entries whole blocks the loop for 5 to 25 seconds.
 */
const MAX_DELAY_MS = 2_000;

const RECALL = `query ($q: String!) {
  recall(query: $q, topK: 50, hops: 3) { hits { rank snippet truncated entry { id } } }
}`;

let t: TestServer;
const hostile = freshWorkspace('hostile');
const neighbour = freshWorkspace('neighbour');

beforeAll(async () => {
  t = await startTestServer();
  for (let i = 0; i < ENTRIES; i++) {
    const { capture } = await t.gqlOk(CAPTURE, { input: { content: longWord(i) } }, { workspace: hostile });
    expect(capture.outcome).toBe('STORED');
  }
  await t.gqlOk(CAPTURE, { input: { content: 'the garden gate needs oiling' } }, { workspace: neighbour });
});
afterAll(async () => {
  await t?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `work` while sampling this process's event loop, which the test server shares: the
 * longest stretch the loop could not run a timer is what every other workspace waited.
 */
async function withLoopDelay<T>(work: () => Promise<T>): Promise<{ result: T; maxMs: number }> {
  const h: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  // The histogram's first tick only starts its clock; a block before it would go unseen.
  await sleep(50);
  try {
    const result = await work();
    await sleep(50);
    return { result, maxMs: h.max / 1e6 };
  } finally {
    h.disable();
  }
}

describe('a workspace full of long words', () => {
  it('answers recall without freezing the server for the other workspaces', async () => {
    const [{ result, maxMs }, neighbourly] = await Promise.all([
      withLoopDelay(() => t.gqlOk(RECALL, { q: 'yyy' }, { workspace: hostile })),
      t.gqlOk('{ count }', {}, { workspace: neighbour }),
    ]);
    expect(neighbourly.count).toBe(1);
    const hits = result.recall.hits as { entry: { id: string }; snippet: string }[];
    expect(hits).toHaveLength(ENTRIES);
    expect(new Set(hits.map((h) => h.entry.id)).size).toBe(ENTRIES);
    // The budget runs out after a dozen snippets; those it covers open on the matched word.
    const shown = hits.filter((h) => h.snippet.length > 0);
    expect(shown.length).toBeGreaterThanOrEqual(2);
    for (const h of shown) expect(h.snippet.startsWith('yyy')).toBe(true);
    expect(maxMs).toBeLessThan(MAX_DELAY_MS);
  });

  it('stays within bounds when recalled again with every snippet whole', async () => {
    const { result, maxMs } = await withLoopDelay(() =>
      t.gqlOk(
        `query ($q: String!) { recall(query: $q, topK: 50, full: true) { hits { snippet truncated } } }`,
        { q: `yyy ${'\uFDFA'.repeat(990)}` },
        { workspace: hostile },
      ),
    );
    expect(result.recall.hits).toHaveLength(ENTRIES);
    expect(result.recall.hits[0].snippet).toHaveLength(longWord(0).length);
    expect(maxMs).toBeLessThan(MAX_DELAY_MS);
  });
});

describe('a workspace full of A.A.A…', () => {
  // Enough entries that a pass whose patterns rescan each run (milliseconds an entry) holds
  // the loop for seconds, while linear patterns and turns between chunks keep it short.
  const COUNT = 1_500;
  const dotted = freshWorkspace('dotted');

  beforeAll(async () => {
    const contents = Array.from({ length: COUNT }, (_, i) => `${'A.'.repeat(1_000)} ${i}`);
    const send = async () => {
      for (let c = contents.pop(); c !== undefined; c = contents.pop()) {
        await t.gqlOk(CAPTURE, { input: { content: c } }, { workspace: dotted });
      }
    };
    await Promise.all(Array.from({ length: 8 }, send));
  });

  it('runs its staleness pass without freezing the server', async () => {
    const { result, maxMs } = await withLoopDelay(() =>
      t.gqlOk(
        'mutation { runStalenessPass(input: { limit: 10000 }) { report { reclassified } } }',
        {},
        { workspace: dotted },
      ),
    );
    expect(result.runStalenessPass.report.reclassified).toBe(COUNT);
    expect(maxMs).toBeLessThan(MAX_DELAY_MS);
  });
});

describe('a document of many recalls over long entries', () => {
  // Long entries of many distinct words make each recall cost tens of milliseconds; a
  // document may hold 15 of them (CONTRACT §8 never rejects 15 aliases).
  const words = Array.from({ length: 3_000 }, (_, i) => `w${(i * 7919) % 100_003}x`);
  const text = (seed: number) =>
    Array.from({ length: 12_000 }, (_, i) => words[(seed * 131 + i * 17 + ((i * i) % 97)) % words.length]).join(' ');
  const heavy = freshWorkspace('heavy');
  const query = words.slice(0, 120).join(' ');
  const aliases = Array.from(
    { length: 15 },
    (_, i) => `r${i}: recall(query: $q, topK: 50, hops: 3) { hits { rank snippet } }`,
  ).join('\n');

  beforeAll(async () => {
    for (let i = 0; i < 60; i++) {
      await t.gqlOk(CAPTURE, { input: { content: text(i) } }, { workspace: heavy });
    }
  });

  it('lets another workspace’s request through between its recalls', async () => {
    const finished: string[] = [];
    const many = t.gqlOk(`query ($q: String!) { ${aliases} }`, { q: query }, { workspace: heavy }).then((data) => {
      finished.push('many recalls');
      return data;
    });
    // Sent once the heavy document is in; answered while it still runs, not after.
    await sleep(20);
    const small = t.gqlOk('{ count }', {}, { workspace: neighbour }).then((data) => {
      finished.push('count');
      return data;
    });
    const [data, counted] = await Promise.all([many, small]);
    expect(Object.keys(data)).toHaveLength(15);
    expect(data.r0.hits.length).toBeGreaterThan(0);
    expect(counted.count).toBe(1);
    expect(finished).toEqual(['count', 'many recalls']);
  });
});
