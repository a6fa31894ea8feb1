import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { FtsTerms } from '../../db/fts-terms.ts';
import { type Embedder, type EmbedPurpose, normalize } from './embedder.ts';
import type { GloveTable } from './glove-table.ts';

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

/**
 * Built-in, offline embeddings: a text's vector is the IDF-weighted sum of its words' GloVe
 * vectors (each at unit length), normalized. The IDF comes from the workspace's own
 * document frequencies (FTS5's vocabulary), so what every entry says (a name, a greeting)
 * weighs little and what sets an entry apart weighs most. A plain average weighed every
 * word alike and ranked clearly worse on LoCoMo.
 */
export class GloveEmbedder implements Embedder {
  readonly kind = 'glove' as const;
  readonly model: string;
  readonly dim: number;
  readonly inline = true;
  readonly #table: GloveTable;
  readonly #terms = new FtsTerms();

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
    const { docs, df } = await documentFrequencies(db, [...new Set(terms.filter((t): t is string => t !== null))]);
    // A document being stored is not in the index yet: count it, as it will be.
    const self = purpose === 'document' ? 1 : 0;
    const weightOf = (word: string) => {
      const term = termOf.get(word);
      return idf(docs + self, (term ? (df.get(term) ?? 0) : 0) + self);
    };
    const vectors = wordsOf.map((words) => this.#sum(words, weightOf));
    return { vectors, docs: docs + self };
  }

  #sum(words: readonly string[], weightOf: (word: string) => number): Float32Array {
    const { dims, rows, scales, data } = this.#table;
    const out = new Float32Array(dims);
    const row = new Float32Array(dims);
    for (const word of words) {
      const r = rows.get(word);
      if (r === undefined) continue;
      const scale = scales[r]!;
      for (let d = 0; d < dims; d++) row[d] = data[r * dims + d]! * scale;
      normalize(row);
      const w = weightOf(word);
      for (let d = 0; d < dims; d++) out[d]! += w * row[d]!;
    }
    return normalize(out);
  }
}

/** The workspace's document count and each term's document frequency (fts5vocab, one statement). */
async function documentFrequencies(
  db: Db,
  terms: readonly string[],
): Promise<{ docs: number; df: Map<string, number> }> {
  const [count] = await db.all<{ n: number }>(sql`SELECT count(*) AS n FROM entries_fts_docsize`);
  const df = new Map<string, number>();
  if (terms.length > 0) {
    const rows = await db.all<{ term: string; doc: number }>(
      sql`SELECT term, doc FROM entries_fts_vocab WHERE term IN (${sql.join(
        terms.map((t) => sql`${t}`),
        sql`, `,
      )})`,
    );
    for (const r of rows) df.set(r.term, Number(r.doc));
  }
  return { docs: Number(count?.n ?? 0), df };
}
