/**
 * A seeded synthetic corpus for the performance benchmark: English-like entries of 20–80
 * words over a Zipf-distributed vocabulary of pseudo-words mixed with common English function
 * words, with tags, kinds, statuses, volatilities, observed dates over two years, and about
 * three typed edges per entry that respect the contract's kind gates (CONTRACT §5).
 *
 * Everything here is a pure function of the seed: the same seed and size give the same
 * entries, ids, edges and query mix, byte for byte.
 */
import type { ClaimTag, EdgeType, EntryKind, EntryStatus, Provenance, Volatility } from '../../src/contract/enums.ts';

/** Bump when the generator changes, so that cached template databases are rebuilt. */
export const CORPUS_VERSION = 1;

/** The corpus ends here; observed dates spread over the two years before it. */
export const CORPUS_END_MS = Date.UTC(2026, 10, 1);
const TWO_YEARS_MS = 2 * 365 * 86_400_000;

// ---------------------------------------------------------------------------------------------
// Randomness

/** sfc32: small, fast, and good enough for synthetic data; seeded through splitmix32. */
export class Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = next();
    this.#b = next();
    this.#c = next();
    this.#d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.#a + this.#b) >>> 0) + this.#d) >>> 0;
    this.#d = (this.#d + 1) >>> 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) >>> 0;
    this.#c = ((this.#c << 21) | (this.#c >>> 11)) >>> 0;
    this.#c = (this.#c + t) >>> 0;
    return t;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4_294_967_296;
  }

  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Picks a key of `weights` with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((s, [, w]) => s + w, 0);
    let r = this.next() * total;
    for (const [k, w] of entries) {
      r -= w;
      if (r < 0) return k;
    }
    return entries[entries.length - 1]![0];
  }
}

/** Samples ranks 0..n-1 with P(r) ∝ 1 / (r + 1)^s. */
export class Zipf {
  readonly #cdf: Float64Array;

  constructor(
    readonly n: number,
    s = 1.05,
  ) {
    this.#cdf = new Float64Array(n);
    let sum = 0;
    for (let r = 0; r < n; r++) {
      sum += 1 / (r + 1) ** s;
      this.#cdf[r] = sum;
    }
    for (let r = 0; r < n; r++) this.#cdf[r]! /= sum;
  }

  sample(rng: Rng): number {
    const u = rng.next();
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

// ---------------------------------------------------------------------------------------------
// Vocabulary

/** Common English function words; every one is also a recall stop word, so queries never use them as terms. */
export const FUNCTION_WORDS = [
  'the',
  'of',
  'and',
  'to',
  'a',
  'in',
  'is',
  'it',
  'that',
  'for',
  'was',
  'on',
  'with',
  'as',
  'by',
  'at',
  'from',
  'this',
  'be',
  'or',
  'are',
  'were',
  'has',
  'had',
  'not',
  'but',
  'which',
  'we',
  'they',
  'will',
  'after',
  'before',
  'about',
  'into',
  'then',
  'when',
  'our',
  'their',
  'some',
  'more',
];

const ONSETS = ['b', 'br', 'c', 'ch', 'd', 'dr', 'f', 'fl', 'g', 'gr', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'pl'];
const ONSETS2 = ['qu', 'r', 's', 'sh', 'sk', 'sl', 'st', 't', 'th', 'tr', 'v', 'w', 'z', ''];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou', 'y'];
const CODAS = ['', '', '', 'n', 'r', 's', 't', 'l', 'm', 'nd', 'st', 'rk', 'x', 'ng'];

/**
 * `count` distinct pseudo-words (2–3 syllables), in Zipf rank order: index 0 is the most
 * frequent. None is an English function word.
 */
export function makeVocabulary(count: number, seed: number): string[] {
  const rng = new Rng(seed ^ 0x5eed_0001);
  const onsets = [...ONSETS, ...ONSETS2];
  const seen = new Set<string>(FUNCTION_WORDS);
  const words: string[] = [];
  while (words.length < count) {
    const syllables = rng.next() < 0.55 ? 2 : 3;
    let w = '';
    for (let i = 0; i < syllables; i++)
      w += rng.pick(onsets) + rng.pick(VOWELS) + (i === syllables - 1 ? rng.pick(CODAS) : '');
    if (w.length < 4 || w.length > 12 || seen.has(w)) continue;
    seen.add(w);
    words.push(w);
  }
  return words;
}

// ---------------------------------------------------------------------------------------------
// Entries and edges

export interface CorpusEntry {
  /** 1-based position; also the entries.n rowid when loaded into an empty database. */
  n: number;
  id: string;
  content: string;
  tags: string[];
  source: string | null;
  kind: EntryKind;
  status: EntryStatus;
  volatility: Volatility;
  volatilitySource: 'caller' | 'default';
  importance: number;
  claimTag: ClaimTag;
  evidenceRef: string | null;
  observedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface CorpusEdge {
  src: string;
  dst: string;
  type: EdgeType;
  weight: number;
  provenance: Provenance;
  createdAt: number;
}

const KIND_WEIGHTS: Record<EntryKind, number> = {
  EPISODIC: 35,
  SEMANTIC: 30,
  PROCEDURAL: 10,
  PERSON: 6,
  PROJECT: 4,
  DOCUMENT: 15,
};
const STATUS_WEIGHTS: Record<EntryStatus, number> = {
  ACTIVE: 84,
  CANONICAL: 5,
  STALE: 5,
  SUPERSEDED: 4,
  DEPRECATED: 2,
};
const VOLATILITY_WEIGHTS: Record<Volatility, number> = { DURABLE: 30, EVOLVING: 55, EPHEMERAL: 15 };
const CLAIM_WEIGHTS: Record<ClaimTag, number> = { VERIFIED: 30, INFERRED: 30, UNKNOWN: 40 };
const PROVENANCE_WEIGHTS: Record<Provenance, number> = { EXPLICIT: 60, INFERRED: 36, SYSTEM: 4 };
const SOURCES = ['chat', 'slack', 'meeting-notes', 'email', 'agent', 'docs'];

export const VOCABULARY_SIZE = 5_000;
const TAG_VOCABULARY = 300;
const FUNCTION_WORD_SHARE = 0.4;
export const EDGES_PER_ENTRY = 3;

/** The word source shared by the corpus, the captures and the query mix. */
export class Language {
  readonly words: string[];
  readonly tags: string[];
  readonly #zipf: Zipf;
  readonly #tagZipf: Zipf;

  constructor(seed: number) {
    this.words = makeVocabulary(VOCABULARY_SIZE, seed);
    this.tags = makeVocabulary(TAG_VOCABULARY, seed + 17).map((w, i) => (i % 3 === 0 ? `topic-${w}` : w));
    this.#zipf = new Zipf(this.words.length, 1.05);
    this.#tagZipf = new Zipf(this.tags.length, 1.0);
  }

  /** A content word, Zipf-distributed over the vocabulary. */
  word(rng: Rng): string {
    return this.words[this.#zipf.sample(rng)]!;
  }

  /** English-like text of `count` words: function words interleaved, sentences of 6–16 words. */
  text(rng: Rng, count: number): string {
    const out: string[] = [];
    let sentence = 0;
    let sentenceLength = rng.int(6, 16);
    for (let i = 0; i < count; i++) {
      let w = rng.next() < FUNCTION_WORD_SHARE ? rng.pick(FUNCTION_WORDS) : this.word(rng);
      if (sentence === 0) w = w[0]!.toUpperCase() + w.slice(1);
      sentence++;
      if (sentence >= sentenceLength || i === count - 1) {
        w += rng.next() < 0.1 ? '?' : '.';
        sentence = 0;
        sentenceLength = rng.int(6, 16);
      } else if (rng.next() < 0.05) {
        w += ',';
      }
      out.push(w);
    }
    return out.join(' ');
  }

  tagList(rng: Rng, max = 4): string[] {
    const n = rng.int(0, max);
    const set = new Set<string>();
    for (let i = 0; i < n; i++) set.add(this.tags[this.#tagZipf.sample(rng)]!);
    return [...set];
  }

  /**
   * A recall query of 2–6 content words: each word is drawn half the time Zipf-weighted (the
   * frequent words a user repeats) and half the time uniformly from the vocabulary (the
   * specific words that pick out a few entries).
   */
  query(rng: Rng): string {
    const n = rng.int(2, 6);
    const words = new Set<string>();
    while (words.size < n) words.add(rng.next() < 0.5 ? this.word(rng) : rng.pick(this.words));
    return [...words].join(' ');
  }
}

/** A UUIDv7-shaped id whose time part is `ms` and whose random part comes from `rng`. */
export function makeId(ms: number, rng: Rng): string {
  const hex = (v: number, len: number) => (v >>> 0).toString(16).padStart(len, '0').slice(-len);
  const time = ms.toString(16).padStart(12, '0');
  return (
    `${time.slice(0, 8)}-${time.slice(8, 12)}-7${hex(rng.u32(), 3)}-` +
    `${hex((rng.u32() & 0x3fff) | 0x8000, 4)}-${hex(rng.u32(), 8)}${hex(rng.u32(), 4)}`
  );
}

export type CorpusItem = { entry: CorpusEntry; edge?: undefined } | { edge: CorpusEdge; entry?: undefined };

/**
 * Generates `size` entries in creation order, each followed by its edges (an edge only ever
 * points at entries already yielded), so that a loader can stream a million entries without
 * holding them.
 */
export function* generateCorpus(size: number, seed: number): Generator<CorpusItem> {
  const lang = new Language(seed);
  const rng = new Rng(seed);
  const ids: string[] = new Array(size);
  const byKind: Record<EntryKind, number[]> = {
    EPISODIC: [],
    SEMANTIC: [],
    PROCEDURAL: [],
    PERSON: [],
    PROJECT: [],
    DOCUMENT: [],
  };
  /** Entries whose status is SUPERSEDED and that still await the SUPERSEDES edge of a successor. */
  const awaitingSuccessor: number[] = [];
  const start = CORPUS_END_MS - TWO_YEARS_MS;
  const step = TWO_YEARS_MS / size;
  // Every edge touches the entry being generated, so duplicates can only arise within one entry's edges.
  const edgeKeys = new Set<string>();

  const makeEdge = (i: number, j: number, type: EdgeType, createdAt: number): CorpusEdge | null => {
    if (i === j) return null;
    let src = ids[i]!;
    let dst = ids[j]!;
    if (type === 'RELATES_TO' && dst < src) [src, dst] = [dst, src];
    const key = `${src}|${dst}|${type}`;
    if (edgeKeys.has(key)) return null;
    edgeKeys.add(key);
    return {
      src,
      dst,
      type,
      weight: Math.max(0.05, Math.round(rng.next() * 100) / 100),
      provenance: rng.weighted(PROVENANCE_WEIGHTS),
      createdAt,
    };
  };
  /** A recent earlier entry (most links are local in time), sometimes any earlier entry. */
  const earlier = (i: number): number => {
    if (rng.next() < 0.8) return Math.max(0, i - 1 - Math.floor(-Math.log(1 - rng.next()) * 200));
    return rng.int(0, i - 1);
  };
  /** Hubs: people and projects are linked Zipf-wise, so a few of them collect many edges. */
  const hub = (list: number[]): number => {
    const r = Math.floor((-Math.log(1 - rng.next()) * list.length) / 6);
    return list[Math.min(list.length - 1, r)]!;
  };

  for (let i = 0; i < size; i++) {
    const observed = Math.round(start + i * step + rng.next() * step);
    const createdAt = observed + rng.int(0, 3_600_000);
    const kind = rng.weighted(KIND_WEIGHTS);
    let status = rng.weighted(STATUS_WEIGHTS);
    const volatility = rng.weighted(VOLATILITY_WEIGHTS);
    const caller = rng.next() < 0.7;
    const wordCount = rng.int(20, 80);
    let content = lang.text(rng, wordCount);
    if (kind === 'PERSON') content = `Person note. ${content}`;
    if (kind === 'PROJECT') content = `Project note. ${content}`;
    const id = makeId(createdAt, rng);
    ids[i] = id;
    if (status === 'SUPERSEDED' && i < size - 1) awaitingSuccessor.push(i);
    else if (status === 'SUPERSEDED') status = 'ACTIVE';
    yield {
      entry: {
        n: i + 1,
        id,
        content,
        tags: lang.tagList(rng),
        source: rng.next() < 0.8 ? rng.pick(SOURCES) : null,
        kind,
        status,
        volatility,
        volatilitySource: caller ? 'caller' : 'default',
        importance: Math.round(rng.next() * 100) / 100,
        claimTag: rng.weighted(CLAIM_WEIGHTS),
        evidenceRef: rng.next() < 0.15 ? `ref-${rng.int(1, 99_999)}` : null,
        observedAt: rng.next() < 0.9 ? observed : null,
        createdAt,
        updatedAt: createdAt,
      },
    };
    byKind[kind].push(i);
    edgeKeys.clear();
    if (i === 0) continue;

    // A successor supersedes an older SUPERSEDED entry (dst SUPERSEDED, as the contract's SUPERSEDES does).
    if (awaitingSuccessor.length > 0 && awaitingSuccessor[0]! < i && rng.next() < 0.5) {
      const edge = makeEdge(i, awaitingSuccessor.shift()!, 'SUPERSEDES', createdAt);
      if (edge) yield { edge };
    }
    // About three typed edges from this entry to earlier ones, each type only where its kind gate allows.
    for (let k = 0, tries = 0; k < EDGES_PER_ENTRY && tries < 10; tries++) {
      const options: Partial<Record<EdgeType, number>> = { RELATES_TO: 30, CAUSED_BY: 8 };
      const prevEpisodic = byKind.EPISODIC.length > 1 || (kind !== 'EPISODIC' && byKind.EPISODIC.length > 0);
      if (kind === 'EPISODIC' && prevEpisodic) options.FOLLOWS = 25;
      if (kind === 'EPISODIC') options.DECIDED = 8;
      if (kind === 'DOCUMENT') options.DOCUMENT_OF = 20;
      if (byKind.PERSON.length > 0 && kind !== 'PERSON') options.ABOUT_PERSON = 15;
      if (byKind.PROJECT.length > 0 && kind !== 'PROJECT') options.PART_OF_PROJECT = 12;
      const type = rng.weighted(options as Record<EdgeType, number>);
      let j: number;
      switch (type) {
        case 'FOLLOWS': {
          // The previous episode (or one of the few before it): src and dst both EPISODIC.
          const list = byKind.EPISODIC;
          j = list[Math.max(0, list.length - 2 - Math.floor(rng.next() * Math.min(3, list.length - 1)))]!;
          break;
        }
        case 'ABOUT_PERSON':
          j = hub(byKind.PERSON);
          break;
        case 'PART_OF_PROJECT':
          j = hub(byKind.PROJECT);
          break;
        default:
          j = earlier(i);
      }
      const edge = makeEdge(i, j, type, createdAt);
      if (edge) {
        k++;
        yield { edge };
      }
    }
  }
}

/** A capture the benchmark sends over the API: new content that no corpus entry has. */
export interface CaptureSpec {
  content: string;
  tags: string[];
  kind: EntryKind;
  volatility: Volatility;
  importance: number;
  observedAt: string;
}

/** `count` captures with distinct contents, from their own random stream (distinct from the corpus). */
export function makeCaptures(count: number, seed: number, salt: string): CaptureSpec[] {
  const lang = new Language(seed);
  const rng = new Rng(seed * 31 + 7 + salt.length * 1_000_003 + hashString(salt));
  const seen = new Set<string>();
  const out: CaptureSpec[] = [];
  while (out.length < count) {
    const content = lang.text(rng, rng.int(20, 80));
    if (seen.has(content)) continue;
    seen.add(content);
    out.push({
      content,
      tags: lang.tagList(rng, 3),
      kind: rng.weighted(KIND_WEIGHTS),
      volatility: rng.weighted(VOLATILITY_WEIGHTS),
      importance: Math.round(rng.next() * 100) / 100,
      observedAt: new Date(CORPUS_END_MS + rng.int(0, 86_400_000)).toISOString(),
    });
  }
  return out;
}

/**
 * The fixed recall query mix, in the words of the corpus built with `seed`; another
 * `variant` is another mix of the same words (a different seed would be another language,
 * whose queries find nothing).
 */
export function makeQueries(count: number, seed: number, variant = 0): string[] {
  const lang = new Language(seed);
  const rng = new Rng(seed * 7 + 3 + variant * 1_000_003);
  return Array.from({ length: count }, () => lang.query(rng));
}

function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
