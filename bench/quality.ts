/**
 * LoCoMo retrieval quality: loads each conversation into its own workspace through the public
 * GraphQL API of a real server, asks every category 1-4 question with `recall`, and reports
 * evidence recall@K beside a plain Okapi BM25 baseline over the same turns.
 *
 *   npm run bench:quality                  # starts a server on a temp data dir
 *   SPHERE_URL=http://127.0.0.1:4000/graphql npm run bench:quality   # use a running server (open mode)
 *   LOCOMO_PATH=/path/to/locomo10.json     # default: ../shared/data/locomo10.json beside the repo
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { buildServer } from '../src/server/server.ts';
import {
  Bm25Index,
  type Conversation,
  formatTable,
  KS,
  LOCOMO_PATH,
  loadLocomo,
  REPO_ROOT,
  RecallTally,
} from './locomo.ts';

const TOP_K = 20;
const CONCURRENCY = 8;

async function gql<T>(url: string, workspace: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: { message: string }[] };
  if (body.errors?.length || !body.data) {
    throw new Error(`${workspace}: ${body.errors?.map((e) => e.message).join('; ') ?? `HTTP ${res.status}`}`);
  }
  return body.data;
}

/** Runs `work` over `items` with at most `limit` in flight, keeping results in item order. */
async function pool<T, R>(items: readonly T[], limit: number, work: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const CAPTURE = `mutation ($input: CaptureInput!) { capture(input: $input) { outcome entry { id } } }`;
const LINK = `mutation ($input: LinkInput!) { link(input: $input) { edge { type } } }`;
const RECALL = `query ($q: String!, $k: Int!, $asOf: DateTime!) {
  recall(query: $q, topK: $k, asOf: $asOf) { hits { rank entry { id } } } }`;

/** Captures every turn and links consecutive turns of a session; returns dia id → entry id. */
async function loadConversation(url: string, workspace: string, conv: Conversation): Promise<Map<string, string>> {
  const ids = await pool(conv.turns, CONCURRENCY, async (turn) => {
    const data = await gql<{ capture: { entry: { id: string } } }>(url, workspace, CAPTURE, {
      input: {
        content: turn.content,
        kind: 'EPISODIC',
        tags: [turn.speaker, `session-${turn.session}`],
        observedAt: turn.observedAt.toISOString(),
      },
    });
    return data.capture.entry.id;
  });
  const links: { src: string; dst: string }[] = [];
  for (let i = 1; i < conv.turns.length; i++) {
    // A turn FOLLOWS the one before it in the same session (identical turns share an entry: no self-link).
    if (conv.turns[i]!.session === conv.turns[i - 1]!.session && ids[i] !== ids[i - 1]) {
      links.push({ src: ids[i]!, dst: ids[i - 1]! });
    }
  }
  await pool(links, CONCURRENCY, (l) => gql(url, workspace, LINK, { input: { ...l, type: 'FOLLOWS' } }));
  return new Map(conv.turns.map((t, i) => [t.diaId, ids[i]!]));
}

async function main(): Promise<void> {
  const conversations = loadLocomo();
  let url = process.env.SPHERE_URL ?? null;
  let stop = async () => {};
  if (!url) {
    const dataDir = mkdtempSync(join(tmpdir(), 'sphere-bench-'));
    const server = buildServer(
      loadConfig({}, { port: 0, host: '127.0.0.1', dataDir, rateLimit: 0, logLevel: 'silent' }),
    );
    const started = await server.start();
    url = `${started.url.replace(/\/$/, '').replace(/\/graphql$/, '')}/graphql`;
    stop = async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  }
  const run = Date.now().toString(36);
  const ours = new RecallTally();
  const baseline = new RecallTally();
  const started = Date.now();
  let recallMs = 0;
  let questions = 0;
  try {
    for (const [i, conv] of conversations.entries()) {
      const workspace = `locomo-${run}-${i}`;
      const t0 = Date.now();
      const entryOf = await loadConversation(url, workspace, conv);
      const turnsOf = new Map<string, string[]>();
      for (const [dia, id] of entryOf) turnsOf.set(id, [...(turnsOf.get(id) ?? []), dia]);
      const bm25 = new Bm25Index(
        conv.turns.map((t) => t.diaId),
        conv.turns.map((t) => t.content),
      );
      const loadedMs = Date.now() - t0;
      // One question at a time: each recall bumps the recall counts the next one sees.
      for (const q of conv.questions) {
        const t1 = performance.now();
        const data = await gql<{ recall: { hits: { rank: number; entry: { id: string } }[] } }>(
          url,
          workspace,
          RECALL,
          {
            q: q.question,
            k: TOP_K,
            asOf: conv.asOf.toISOString(),
          },
        );
        recallMs += performance.now() - t1;
        questions++;
        const hits = [...data.recall.hits].sort((a, b) => a.rank - b.rank);
        ours.add(
          q.category,
          hits.flatMap((h) => turnsOf.get(h.entry.id) ?? []),
          q.evidence,
        );
        baseline.add(q.category, bm25.search(q.question, TOP_K), q.evidence);
      }
      console.error(
        `${conv.sampleId}: ${conv.turns.length} turns loaded in ${loadedMs} ms, ${conv.questions.length} questions`,
      );
    }
  } finally {
    await stop();
  }

  const table = formatTable(ours.means(), baseline.means());
  console.log(table);
  console.log(
    `\n${questions} questions, mean recall latency ${(recallMs / questions).toFixed(1)} ms (HTTP round trip)`,
  );
  const result = {
    at: new Date().toISOString(),
    data: LOCOMO_PATH,
    topK: TOP_K,
    ks: KS,
    questions,
    meanRecallMs: recallMs / questions,
    totalMs: Date.now() - started,
    ours: ours.means(),
    bm25: baseline.means(),
  };
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = result.at.replace(/[:.]/g, '-');
  writeFileSync(join(dir, `quality-${stamp}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(dir, 'quality-latest.json'), `${JSON.stringify(result, null, 2)}\n`);
}

await main();
