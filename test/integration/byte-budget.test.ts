import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEAVY_READS } from '../../src/server/heavy-reads.ts';
import { budget } from '../helpers/budget.ts';
import { type ServerProcess, spawnServer } from '../helpers/process.ts';

/**
 * A reader within every argument limit cannot make the server read hundreds of megabytes
 * of entry text on its loop: the estimate refuses what could not fit, and what runs stops
 * reading at the response cap. A real server process, so the loop measured is its own.
 */

const WORKSPACE = 'bytes';
const ENTRIES = 40;
const LONG = 100_000;

let server: ServerProcess;
let dataDir: string;
let origin: string;

async function gql(query: string, variables: Record<string, unknown> = {}, workspace = WORKSPACE) {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: res.status,
    body: (await res.json()) as { data?: unknown; errors?: { extensions: { code: string } }[] },
  };
}

/** Captures `count` entries of 100,000 characters into `workspace`. */
async function fill(workspace: string, count: number) {
  // Five entries of 100,000 characters a request keeps each body under the 1 MiB cap.
  for (let i = 0; i < count; i += 5) {
    const vars = Object.fromEntries(
      Array.from({ length: 5 }, (_, j) => [`c${j}`, `entry ${i + j} `.padEnd(LONG, 'lorem ipsum dolor ')]),
    );
    const doc = `mutation(${Object.keys(vars)
      .map((v) => `$${v}: String!`)
      .join(', ')}) { ${Object.keys(vars)
      .map((v) => `${v}: capture(input: { content: $${v} }) { outcome }`)
      .join(' ')} }`;
    const res = await gql(doc, vars, workspace);
    expect(res.body.errors).toBeUndefined();
  }
}

/** The server process's peak resident memory so far, in MB (Linux). */
function peakMb(): number {
  const status = readFileSync(`/proc/${server.proc.pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) / 1024;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-bytes-'));
  server = await spawnServer({ SPHERE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  origin = new URL(server.url).origin;
  await fill(WORKSPACE, ENTRIES);
});
afterAll(async () => {
  server?.proc.kill('SIGTERM');
  await server?.exited;
  await rm(dataDir, { recursive: true, force: true });
});

/** The slowest of three /health answers while `attack` runs; the best of three rounds. */
async function healthDuring(attack: () => Promise<unknown>): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const inFlight = attack();
    await new Promise((r) => setTimeout(r, 20));
    let worst = 0;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expect((await fetch(`${origin}/health`)).status).toBe(200);
      worst = Math.max(worst, performance.now() - started);
    }
    await inFlight;
    best = Math.min(best, worst);
  }
  return best;
}

describe('bytes of entry text', () => {
  it('refuses 30 aliases of recent(n: 200) { content } early, and /health never waits', async () => {
    const doc = `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: recent(n: 200) { content }`).join(' ')} }`;
    const refused = await gql(doc);
    expect(refused.body.errors?.[0]?.extensions.code).toBe('RESPONSE_TOO_LARGE');
    expect(refused.body.data ?? null).toBeNull();
    const worst = await healthDuring(() => gql(doc));
    console.log(`/health while 30 × recent(n: 200) { content } is refused: worst ${worst.toFixed(1)} ms`);
    expect(worst).toBeLessThan(budget(100));
  });

  it('builds 30 briefs over entries of 100,000 characters without holding /health', async () => {
    const doc = `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: brief { text }`).join(' ')} }`;
    const answered = await gql(doc);
    expect(answered.body.errors).toBeUndefined();
    const briefs = Object.values(answered.body.data as Record<string, { text: string }>);
    expect(briefs).toHaveLength(30);
    // Each line shows the beginning of its entry, cut at 120 characters.
    expect(briefs[0]!.text).toMatch(/- \[semantic\] entry \d+ lorem ipsum dolor .{80,}…/);
    const worst = await healthDuring(() => gql(doc));
    console.log(`/health while 30 × brief { text } are built: worst ${worst.toFixed(1)} ms`);
    expect(worst).toBeLessThan(budget(100));
  });

  it('answers a reader who asks within bounds, and runs a burst of heavy reads in turns', async () => {
    const whole = await gql(`{ recent(n: ${ENTRIES}) { content } }`);
    expect(whole.body.errors).toBeUndefined();
    expect((whole.body.data as { recent: unknown[] }).recent).toHaveLength(ENTRIES);
    // More heavy reads at once than one client may run or queue: each is answered, in
    // full or refused RATE_LIMITED, and the turns are all given back afterwards.
    const burst = HEAVY_READS.perClient + HEAVY_READS.waiting + 6;
    const answers = await Promise.all(
      Array.from({ length: burst }, () => gql(`{ recent(n: ${ENTRIES}) { content } }`)),
    );
    for (const a of answers) {
      const code = a.body.errors?.[0]?.extensions.code;
      if (code) expect(code).toBe('RATE_LIMITED');
      else expect((a.body.data as { recent: unknown[] }).recent).toHaveLength(ENTRIES);
    }
    const after = await Promise.all(
      Array.from({ length: HEAVY_READS.perClient }, () => gql(`{ recent(n: ${ENTRIES}) { content } }`)),
    );
    for (const a of after) expect(a.body.errors).toBeUndefined();
  });

  it('reads no entry text for lists that show none: 30 aliases of 200 ids move kilobytes, not 600 MB', async () => {
    const many = 'bytes-many';
    await fill(many, 200);
    const ids = (await gql('{ recent(n: 200) { id } }', {}, many)).body.data as { recent: { id: string }[] };
    expect(ids.recent).toHaveLength(200);
    const doc = `{ ${Array.from({ length: 15 }, (_, i) => `r${i}: recent(n: 200) { id kind createdAt }`).join(' ')} ${Array.from(
      { length: 15 },
      (_, i) => `p${i}: entries(first: 200) { edges { node { id tags } } }`,
    ).join(' ')} }`;
    const before = peakMb();
    const res = await gql(doc, {}, many);
    const grew = peakMb() - before;
    console.log(
      `peak memory while 30 lists of 200 ids over 200 entries of 100,000 characters are answered: +${grew.toFixed(0)} MB`,
    );
    expect(res.body.errors).toBeUndefined();
    const data = res.body.data as Record<string, { id: string }[] & { edges: { node: { id: string } }[] }>;
    expect(data.r0!.map((e) => e.id)).toEqual(ids.recent.map((e) => e.id));
    expect(data.p14!.edges.map((e) => e.node.id)).toEqual(ids.recent.map((e) => e.id));
    // Every alias would have read the 20 MB of text the workspace holds: 600 MB on the request thread.
    expect(grew).toBeLessThan(100);
    // Lists that show the text still read it whole, through a fragment too.
    const texts = await gql(
      '{ recent(n: 2) { id ... on Entry { content } } entries(first: 2) { edges { node { ...T } } } } fragment T on Entry { content }',
      {},
      many,
    );
    expect(texts.body.errors).toBeUndefined();
    const shown = texts.body.data as {
      recent: { content: string }[];
      entries: { edges: { node: { content: string } }[] };
    };
    for (const e of shown.recent) expect(e.content).toHaveLength(LONG);
    for (const e of shown.entries.edges) expect(e.node.content).toHaveLength(LONG);
    // Entries loaded by id (node, nodes, entry, an edge's ends) read the start of their
    // text; a content asked of them reads the rest.
    const some = ids.recent.slice(0, 100).map((e) => e.id);
    const loaded = await gql(
      'query($ids: [ID!]!, $one: ID!) { nodes(ids: $ids) { id } entry(id: $one) { content } node(id: $one) { ... on Entry { kind content } } }',
      { ids: some, one: some[7] },
      many,
    );
    expect(loaded.body.errors).toBeUndefined();
    const got = loaded.body.data as { nodes: { id: string }[]; entry: { content: string }; node: { content: string } };
    expect(got.nodes.map((n) => n.id)).toEqual(some);
    expect(got.entry.content).toHaveLength(LONG);
    expect(got.node.content).toBe(got.entry.content);
  });

  it('reads no revision text it does not show: 30 pages of 100 earlier texts move kilobytes', async () => {
    const ws = 'bytes-revisions';
    const made = await gql('mutation { capture(input: { content: "rewritten often" }) { entry { id } } }', {}, ws);
    const id = (made.body.data as { capture: { entry: { id: string } } }).capture.entry.id;
    // 100 rewrites of 100,000 characters, five a request: 100 earlier texts, the first short.
    for (let i = 0; i < 100; i += 5) {
      const vars = Object.fromEntries(
        Array.from({ length: 5 }, (_, j) => [`c${j}`, `rewrite ${i + j} `.padEnd(LONG, 'lorem ipsum dolor ')]),
      );
      const doc = `mutation(${Object.keys(vars)
        .map((v) => `$${v}: String!`)
        .join(', ')}) { ${Object.keys(vars)
        .map((v) => `${v}: update(input: { id: "${id}", content: $${v} }) { entry { id } }`)
        .join(' ')} }`;
      expect((await gql(doc, vars, ws)).body.errors).toBeUndefined();
    }
    // Thirty pages asked alike but for `first`, so that each is read on its own.
    const doc = `{ ${Array.from({ length: 30 }, (_, i) => `e${i}: entry(id: "${id}") { revisions(first: ${171 + i}) { id op at } }`).join(' ')} }`;
    const before = peakMb();
    const res = await gql(doc, {}, ws);
    const grew = peakMb() - before;
    console.log(
      `peak memory while 30 pages of 100 revisions of 100,000 characters are answered without text: +${grew.toFixed(0)} MB`,
    );
    expect(res.body.errors).toBeUndefined();
    const pages = res.body.data as Record<string, { revisions: { id: string }[] }>;
    expect(pages.e0!.revisions).toHaveLength(100);
    expect(pages.e29!.revisions).toEqual(pages.e0!.revisions);
    // Every page would have read the 10 MB of earlier texts: 300 MB on the request thread.
    expect(grew).toBeLessThan(100);
    // Shown, the earlier texts are whole.
    const shown = await gql(`{ entry(id: "${id}") { revisions(first: 3) { content } } }`, {}, ws);
    expect(shown.body.errors).toBeUndefined();
    const texts = (shown.body.data as { entry: { revisions: { content: string }[] } }).entry.revisions;
    expect(texts.map((r) => r.content.length)).toEqual(['rewritten often'.length, LONG, LONG]);
  });
});
