/**
 * What a model's cosines mean: the distribution of cosines between random LoCoMo turns of
 * one conversation (unrelated, nearly all), and between hand-made pairs (near paraphrases
 * of one event, retellings of it in other words, different events on one topic, unrelated),
 * against the semantic capture thresholds. The thresholds of a model profile come from
 * here: duplicate midway between the lowest paraphrase and the highest retelling; similar
 * at the p99.5 of random turns (one in 200 pairs of a conversation's turns, mostly short
 * chit-chat alike in meaning); link and MMR's floor at their p99.
 *
 *   npx tsx bench/cosines.ts --embeddings onnx [--model-dir .models/all-MiniLM-L6-v2] [--profile minilm]
 *   npx tsx bench/cosines.ts [--variants raw:0,3:0,3:0.0003] [--conversations 10]     (glove)
 *
 * GloVe's IDF comes from the conversation's own turns, as a workspace holding it would.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { ProfileName } from '../src/contract/embeddings.ts';
import { SEMANTIC_CAPTURE } from '../src/contract/policy.ts';
import { FtsTerms } from '../src/db/fts-terms.ts';
import { dot } from '../src/memory/embeddings/embedder.ts';
import { embeddingWords, frequencyWeight, gloveVector, idf, SIF_A } from '../src/memory/embeddings/glove.ts';
import {
  allButTheTop,
  GLOVE_PACKAGE,
  type GloveTable,
  loadGloveTable,
  tableOf,
} from '../src/memory/embeddings/glove-table.ts';
import { OnnxEmbedder } from '../src/memory/embeddings/onnx.ts';
import { NO_PROFILE_SETTINGS, resolveProfile } from '../src/memory/embeddings/profile.ts';
import { type Conversation, loadLocomo, REPO_ROOT } from './locomo.ts';

/** Same event, lightly reworded: a duplicate (≥ duplicate). */
const NEAR: [string, string][] = [
  [
    'The production deploy failed on Friday because the database migration timed out.',
    'Friday: production deploy failed, because the database migration timed out!',
  ],
  [
    'Caroline went to the LGBTQ support group yesterday and found it very moving.',
    'Yesterday Caroline went to the LGBTQ support group and found it really moving.',
  ],
  [
    'Melanie painted a sunset over the lake with her kids last weekend.',
    'Last weekend Melanie and her kids painted a sunset over the lake.',
  ],
  ['My sister adopted a golden retriever puppy named Max.', 'My sister adopted a puppy, a golden retriever named Max.'],
  [
    'The quarterly budget review moved to the finance office on Tuesday.',
    'On Tuesday the quarterly budget review was moved to the finance office.',
  ],
  [
    'I started learning the violin in March and practice every evening.',
    'I started learning violin in March, and I practice each evening.',
  ],
  [
    'We hiked the Appalachian trail for three days in October.',
    'In October we hiked the Appalachian trail for three days.',
  ],
  ['Jon lost his job at the bank and opened a dance studio.', 'Jon lost his bank job and then opened a dance studio.'],
];
/** The same event told again in other words: similar, not a duplicate. */
const RETOLD: [string, string][] = [
  [
    'The production deploy failed on Friday because the database migration timed out.',
    'Our release broke at the end of the week when the schema change hung.',
  ],
  [
    'My sister adopted a golden retriever puppy named Max.',
    'Max, the young golden retriever, is the new dog my sister took home.',
  ],
  [
    'We hiked the Appalachian trail for three days in October.',
    'Last autumn we spent three days walking the Appalachian trail.',
  ],
  [
    'Jon lost his job at the bank and opened a dance studio.',
    'After the bank let him go, Jon started his own dance studio.',
  ],
  [
    'I started learning the violin in March and practice every evening.',
    'Since March I have been taking up the violin, practising each night.',
  ],
  [
    'Melanie painted a sunset over the lake with her kids last weekend.',
    'Last weekend Melanie and her children made a painting of the sun going down over the lake.',
  ],
];
/** Different events on one topic: related (may link), never a duplicate. */
const RELATED: [string, string][] = [
  [
    'The production deploy failed on Friday because the database migration timed out.',
    'Our release broke at the end of the week when the schema change hung.',
  ],
  [
    'Caroline went to the LGBTQ support group yesterday and found it very moving.',
    'Caroline is planning to speak at a pride parade next month.',
  ],
  [
    'Melanie painted a sunset over the lake with her kids last weekend.',
    'Melanie signed up for a pottery class to get more creative.',
  ],
  ['My sister adopted a golden retriever puppy named Max.', 'Our neighbour walks her two beagles every morning.'],
  [
    'We hiked the Appalachian trail for three days in October.',
    'Camping in the mountains last summer was cold but beautiful.',
  ],
  [
    'Jon lost his job at the bank and opened a dance studio.',
    'Gina started her own clothing store after being laid off.',
  ],
];
/** Nothing in common. */
const UNRELATED: [string, string][] = [
  [
    'The production deploy failed on Friday because the database migration timed out.',
    'My sister adopted a golden retriever puppy named Max.',
  ],
  [
    'Caroline went to the LGBTQ support group yesterday and found it very moving.',
    'The quarterly budget review moved to the finance office on Tuesday.',
  ],
  [
    'Melanie painted a sunset over the lake with her kids last weekend.',
    'Jon lost his job at the bank and opened a dance studio.',
  ],
  [
    'I started learning the violin in March and practice every evening.',
    'We hiked the Appalachian trail for three days in October.',
  ],
  ['The kids played football in the park after school.', 'Our quarterly budget review moved to the finance office.'],
  ['Thanks, that means a lot to me!', 'The recipe needs two cups of flour and an egg.'],
];

/** Embeds texts with IDF from the given documents (what the workspace's FTS5 would count). */
function embedderOver(table: GloveTable, docs: readonly string[], sifA: number) {
  const terms = new FtsTerms();
  const df = new Map<string, number>();
  const termsOf = (text: string) => {
    const words = embeddingWords(text);
    return new Map(words.map((w, i) => [w, terms.termsOf(words)[i] ?? null]));
  };
  for (const d of docs) for (const t of new Set(termsOf(d).values())) if (t) df.set(t, (df.get(t) ?? 0) + 1);
  return (text: string) => {
    const termOf = termsOf(text);
    return gloveVector(table, embeddingWords(text), (w, row) => {
      const t = termOf.get(w);
      return idf(docs.length, t ? (df.get(t) ?? 0) : 0) * (sifA > 0 ? frequencyWeight(row, sifA) : 1);
    });
  };
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const share = (xs: number[], t: number) => xs.filter((x) => x >= t).length / xs.length;

function report(label: string, xs: number[]): string {
  const { link, similar, duplicate } = SEMANTIC_CAPTURE;
  const f = (x: number) => x.toFixed(3);
  return `${label.padEnd(22)} n=${String(xs.length).padStart(5)}  p5 ${f(pct(xs, 0.05))}  p50 ${f(pct(xs, 0.5))}  p95 ${f(pct(xs, 0.95))}  p99.9 ${f(pct(xs, 0.999))}  max ${f(Math.max(...xs))}  ≥${link} ${(100 * share(xs, link)).toFixed(2)}%  ≥${similar} ${(100 * share(xs, similar)).toFixed(2)}%  ≥${duplicate} ${(100 * share(xs, duplicate)).toFixed(2)}%`;
}

/** Random pairs of distinct turns of each conversation, IDF from that conversation. */
function randomTurnPairs(table: GloveTable, convs: Conversation[], sifA: number): number[] {
  const out: number[] = [];
  let seed = 1;
  const rand = () => {
    seed = (seed * 48271) % 2147483647;
    return seed / 2147483647;
  };
  for (const conv of convs) {
    const embed = embedderOver(
      table,
      conv.turns.map((t) => t.content),
      sifA,
    );
    const vs = conv.turns.map((t) => embed(t.content));
    for (let i = 0; i < 2000; i++) {
      const a = Math.floor(rand() * vs.length);
      const b = Math.floor(rand() * vs.length);
      if (a !== b && conv.turns[a]!.content !== conv.turns[b]!.content) out.push(dot(vs[a]!, vs[b]!));
    }
  }
  return out;
}

/**
 * The hand-made pairs, embedded twice: with IDF from a grown workspace (conversation 1 and
 * the pairs), and in a young one that holds only the two texts (as a test's workspace does).
 */
function handPairs(table: GloveTable, convs: Conversation[], sifA: number) {
  const hand = [...NEAR, ...RELATED, ...UNRELATED].flat();
  const grown = embedderOver(table, [...convs[0]!.turns.map((t) => t.content), ...hand], sifA);
  const inGrown = (ps: [string, string][]) => ps.map(([a, b]) => dot(grown(a), grown(b)));
  const inYoung = (ps: [string, string][]) =>
    ps.map(([a, b]) => {
      const young = embedderOver(table, [a, b], sifA);
      return dot(young(a), young(b));
    });
  return { inGrown, inYoung };
}

const listed = (xs: number[]) => xs.map((x) => x.toFixed(3)).join(' ');

/** A sentence model's cosines (no IDF: the model needs no workspace statistics). */
async function modelCosines(dir: string, profileName: ProfileName | undefined, conversations: number): Promise<void> {
  const profile = resolveProfile({ ...NO_PROFILE_SETTINGS, profile: profileName ?? null }, dir);
  const embedder = await OnnxEmbedder.load({
    dir,
    name: null,
    profile,
    threads: 2,
    chunk: 32,
    maxPendingTexts: 1_000_000,
    queryTimeoutMs: 60_000,
  });
  const thresholds = profile.thresholds;
  const embed = async (texts: string[]) => (await embedder.embed(null, texts, 'document')).vectors;
  const f = (x: number) => x.toFixed(3);
  const line = (label: string, xs: number[]) =>
    `${label.padEnd(22)} n=${String(xs.length).padStart(5)}  min ${f(Math.min(...xs))}  p50 ${f(pct(xs, 0.5))}  p95 ${f(pct(xs, 0.95))}  p99 ${f(pct(xs, 0.99))}  p99.5 ${f(pct(xs, 0.995))}  p99.9 ${f(pct(xs, 0.999))}  max ${f(Math.max(...xs))}`;
  console.log(`== ${embedder.model} (profile ${profile.name}); thresholds now ${JSON.stringify(thresholds)} ==`);
  const random: number[] = [];
  let seed = 1;
  const rand = () => {
    seed = (seed * 48271) % 2147483647;
    return seed / 2147483647;
  };
  for (const conv of loadLocomo().slice(0, conversations)) {
    const vs = await embed(conv.turns.map((t) => t.content));
    for (let i = 0; i < 2000; i++) {
      const a = Math.floor(rand() * vs.length);
      const b = Math.floor(rand() * vs.length);
      if (a !== b && conv.turns[a]!.content !== conv.turns[b]!.content) random.push(dot(vs[a]!, vs[b]!));
    }
  }
  console.log(line('random LoCoMo turns', random));
  const sets = { paraphrase: NEAR, retold: RETOLD, 'related events': RELATED, unrelated: UNRELATED };
  const got: Record<string, number[]> = {};
  for (const [label, pairs] of Object.entries(sets)) {
    const vs = await embed(pairs.flat());
    got[label] = pairs.map((_, i) => dot(vs[2 * i]!, vs[2 * i + 1]!));
    console.log(line(`hand: ${label}`, got[label]), listed(got[label]));
  }
  const r2 = (x: number) => Math.round(x * 100) / 100;
  const suggested = {
    duplicate: r2((Math.min(...got.paraphrase!) + Math.max(...got.retold!)) / 2),
    similar: r2(pct(random, 0.995)),
    link: r2(pct(random, 0.99)),
    mmrFloor: r2(pct(random, 0.99)),
  };
  console.log(`suggested thresholds: ${JSON.stringify(suggested)}`);
  await embedder.close();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      variants: { type: 'string' },
      conversations: { type: 'string' },
      embeddings: { type: 'string' },
      'model-dir': { type: 'string' },
      profile: { type: 'string' },
    },
  });
  if (values.embeddings === 'onnx') {
    const dir = values['model-dir'] ?? join(REPO_ROOT, '.models', 'all-MiniLM-L6-v2');
    await modelCosines(dir, values.profile as ProfileName | undefined, Number(values.conversations ?? 10));
    return;
  }
  const raw = await loadGloveTable(
    process.env.SPHERE_GLOVE_PATH ?? join(REPO_ROOT, 'node_modules', GLOVE_PACKAGE),
    join(process.env.SPHERE_MODELS_DIR ?? join(tmpdir(), 'mini-sphere-models'), 'glove-raw-100k.i8'),
    100_000,
    null,
  );
  const words = Array.from(raw.rows.keys());
  const rawVectors = words.map((_, r) =>
    Float32Array.from(raw.data.subarray(r * raw.dims, (r + 1) * raw.dims), (x) => x * raw.scales[r]!),
  );
  const convs = loadLocomo().slice(0, Number(values.conversations ?? 10));
  // A variant: components removed ("raw": the table as GloVe ships it) and SIF's a (0: IDF alone).
  for (const variant of (values.variants ?? `raw:0,0:0,1:0,2:0,3:0,3:${SIF_A}`).split(',')) {
    const [c, a] = variant.split(':') as [string, string];
    const sifA = Number(a);
    const table = c === 'raw' ? raw : tableOf(raw.dims, words, allButTheTop(rawVectors, Number(c)));
    const name = c === 'raw' ? 'raw GloVe' : `centred, top ${c} components removed`;
    console.log(`\n== ${name}; ${sifA > 0 ? `IDF × SIF a=${sifA}` : 'IDF only'} ==`);
    console.log(report('random LoCoMo turns', randomTurnPairs(table, convs, sifA)));
    const { inGrown, inYoung } = handPairs(table, convs, sifA);
    for (const [label, ps] of [
      ['near paraphrase', NEAR],
      ['related events', RELATED],
      ['unrelated', UNRELATED],
    ] as const) {
      console.log(report(`hand: ${label}`, inGrown(ps)), listed(inGrown(ps)));
      console.log(report(`  young workspace`, inYoung(ps)), listed(inYoung(ps)));
    }
  }
}

await main();
