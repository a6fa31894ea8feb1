import type { Db } from '../../db/client.ts';
import { FtsTerms } from '../../db/fts-terms.ts';
import { DocumentFrequencies } from './document-frequencies.ts';
import { type Embedder, type EmbedPurpose, normalize } from './embedder.ts';
import type { GloveTable } from './glove-table.ts';
import { DEFAULT_THRESHOLDS } from './profile.ts';

/** How much of a text the embedder reads: the same bound recall's own text work keeps. */
const TEXT_MAX_CHARS = 8_000;

/** Lower-cased runs of letters and digits: how GloVe 6B's vocabulary is spelled. */
export function embeddingWords(text: string): string[] {
  return (
    text
      .slice(0, TEXT_MAX_CHARS)
      .normalize('NFC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * IDF as Okapi BM25 weighs it: always positive, near zero for a word nearly every entry
 * holds (a speaker's name on every turn, "the"), highest for the rare ones.
 */
export function idf(docs: number, df: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5));
}

/** SIF's `a` (Arora et al., 2017): a word as frequent as 1 in 1/a tokens weighs half. */
export const SIF_A = 1e-4;

/** Zipf's harmonic number for the GloVe 6B vocabulary (400k words): p(rank r) ≈ 1 / (r · H). */
const ZIPF_H = Math.log(400_000) + 0.5772;

/**
 * Smooth inverse frequency, a / (a + p(word)), with p from the word's frequency rank (the
 * table's rows are in GloVe's frequency order). A young workspace's IDF cannot tell "the"
 * from "deploy" (every word is in one document); this weight can, from the start.
 *
 * @example frequencyWeight(0) // "the": 0.001; frequencyWeight(9999) ≈ 0.93
 */
export function frequencyWeight(row: number, a = SIF_A): number {
  const p = 1 / ((row + 1) * ZIPF_H);
  return a / (a + p);
}

/**
 * Built-in, offline embeddings: a text's vector is the IDF-weighted sum of its words' GloVe
 * vectors (each at unit length, from the centred table), normalized. The IDF comes from the
 * workspace's own document frequencies (FTS5's vocabulary), so what every entry says (a
 * name, a greeting) weighs little and what sets an entry apart weighs most; the frequency
 * weight keeps function words out before the workspace has enough entries to tell. A
 * plain average weighed every word alike and ranked clearly worse on LoCoMo.
 */
export class GloveEmbedder implements Embedder {
  readonly kind = 'glove' as const;
  readonly model: string;
  readonly dim: number;
  readonly inline = true;
  /** The thresholds were set for GloVe sums (its table is processed so that they hold). */
  readonly thresholds = DEFAULT_THRESHOLDS;
  readonly #table: GloveTable;
  readonly #terms = new FtsTerms();
  /** Each workspace's counts (by its database handle), kept between embeddings. */
  readonly #frequencies = new WeakMap<Db, DocumentFrequencies>();

  constructor(table: GloveTable, model: string) {
    this.#table = table;
    this.dim = table.dims;
    this.model = model;
  }

  get bytes(): number {
    return this.#table.bytes;
  }

  async embed(db: Db, texts: readonly string[], purpose: EmbedPurpose) {
    const wordsOf = texts.map(embeddingWords);
    const known = [...new Set(wordsOf.flat())].filter((w) => this.#table.rows.has(w));
    const terms = this.#terms.termsOf(known);
    const termOf = new Map(known.map((w, i) => [w, terms[i] ?? null]));
    const { docs, df } = await this.#frequenciesOf(db).read(db, [
      ...new Set(terms.filter((t): t is string => t !== null)),
    ]);
    // A document being stored is not in the index yet: count it, as it will be.
    const self = purpose === 'document' ? 1 : 0;
    const weightOf = (word: string, row: number) => {
      const term = termOf.get(word);
      return idf(docs + self, (term ? (df.get(term) ?? 0) : 0) + self) * frequencyWeight(row);
    };
    const vectors = wordsOf.map((words) => gloveVector(this.#table, words, weightOf));
    return { vectors, docs: docs + self };
  }

  #frequenciesOf(db: Db): DocumentFrequencies {
    let frequencies = this.#frequencies.get(db);
    if (!frequencies) {
      frequencies = new DocumentFrequencies((text) => this.#terms.termsOfText(text));
      this.#frequencies.set(db, frequencies);
    }
    return frequencies;
  }
}

/**
 * A text's glove vector: the weighted sum of its words' unit vectors, normalized (all
 * zeros when the table knows none of them).
 *
 * @example gloveVector(table, ['golden', 'retriever'], () => 1)
 */
export function gloveVector(
  table: GloveTable,
  words: readonly string[],
  weightOf: (word: string, row: number) => number,
): Float32Array {
  const { dims, rows, scales, data } = table;
  const out = new Float32Array(dims);
  const row = new Float32Array(dims);
  for (const word of words) {
    const r = rows.get(word);
    if (r === undefined) continue;
    const scale = scales[r]!;
    for (let d = 0; d < dims; d++) row[d] = data[r * dims + d]! * scale;
    normalize(row);
    const w = weightOf(word, r);
    for (let d = 0; d < dims; d++) out[d]! += w * row[d]!;
  }
  return normalize(out);
}
