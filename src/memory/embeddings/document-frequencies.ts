import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { decodeFtsTotals, FTS_TOTALS } from '../../db/impact-index.ts';
import { readTogether } from '../../db/rows.ts';

/** Events read at once to catch up; when more came since the last look, the counts start over. */
const CATCH_UP_MAX = 512;

/** Terms remembered per workspace at most (glove's 100k words stem to fewer): past it, the counts start over. */
const TERMS_MAX = 200_000;

/** Events after which the counts of the terms of some entry are unknown (its content changed or went). */
const CHANGES_CONTENT = new Set(['UPDATED', 'APPENDED', 'FORGOTTEN']);

/** What the embedder weighs words by: the workspace's document count and each term's document frequency. */
export interface Frequencies {
  docs: number;
  df: Map<string, number>;
}

/**
 * A workspace's document frequencies as entries_fts counts them, remembered between
 * embeddings. fts5vocab counts a term's documents by reading its whole list (3 ms a capture
 * at 100k entries), so each term is counted once and then followed through the event log:
 * a capture that stored an entry (STORED, REPLACED) adds one to each of its terms (tokenized
 * as entries_fts does), and anything else that changes content (UPDATED, APPENDED,
 * FORGOTTEN, or an import, which writes no events but changes the document count) starts
 * the counts over. Every answer is what counting afresh would give at that moment: the head
 * of the log, the new entries' contents and the terms not yet known are read in one read
 * transaction.
 */
export class DocumentFrequencies {
  readonly #termsOfText: (text: string) => readonly string[];
  /** The event log's head the counts are at; -1 before the first read. */
  #seq = -1;
  #docs = 0;
  #df = new Map<string, number>();
  /** Reads one at a time: each catches up from where the last left the counts. */
  #turn: Promise<unknown> = Promise.resolve();

  /** `termsOfText`: the distinct terms entries_fts makes of a content (FtsTerms.termsOfText). */
  constructor(termsOfText: (text: string) => readonly string[]) {
    this.#termsOfText = termsOfText;
  }

  /** The document count and the frequencies of `terms` (a term in no document is absent). */
  read(db: Db, terms: readonly string[]): Promise<Frequencies> {
    const turn = this.#turn.then(() => this.#read(db, terms));
    this.#turn = turn.catch(() => {});
    return turn;
  }

  async #read(db: Db, terms: readonly string[]): Promise<Frequencies> {
    const missing = terms.filter((t) => !this.#df.has(t));
    const fresh = this.#seq < 0;
    const [head, ...rest] = await readTogether(db, [
      sql`SELECT coalesce((SELECT max(seq) FROM events), 0) AS seq, (SELECT block FROM ${FTS_TOTALS}) AS totals`,
      ...(fresh ? [] : [eventsAfter(this.#seq)]),
      ...(missing.length > 0 ? [countsOf(missing)] : []),
    ]);
    const events = fresh ? [] : (rest.shift() ?? []);
    const counted = rest.shift() ?? [];
    const seq = Number(head?.[0]?.seq ?? 0);
    const docs = decodeFtsTotals(head?.[0]?.totals).rows;
    if (!fresh && !this.#catchUp(events, seq, docs)) {
      this.#clear();
      return this.#read(db, terms);
    }
    if (this.#df.size + missing.length > TERMS_MAX) this.#df.clear();
    for (const r of counted) this.#df.set(String(r.term), Number(r.doc ?? 0));
    this.#seq = seq;
    this.#docs = docs;
    const df = new Map<string, number>();
    for (const t of terms) {
      const n = this.#df.get(t) ?? 0;
      if (n > 0) df.set(t, n);
    }
    return { docs, df };
  }

  /**
   * Brings the counts from the last read to the log's head `seq` and `docs` documents along
   * the events since: true when only stored captures came (each content's terms one
   * document more), false when the counts must start over.
   */
  #catchUp(events: readonly Record<string, unknown>[], seq: number, docs: number): boolean {
    // Every event up to the head, none missing: the log's seqs have no gaps.
    if (events.length > CATCH_UP_MAX || seq - this.#seq !== events.length) return false;
    const added: string[] = [];
    for (const [i, e] of events.entries()) {
      if (Number(e.seq) !== this.#seq + 1 + i) return false;
      if (CHANGES_CONTENT.has(String(e.type))) return false;
      if (e.type === 'CAPTURED' && (e.outcome === 'STORED' || e.outcome === 'REPLACED')) {
        if (e.content == null) return false;
        added.push(String(e.content));
      }
    }
    // Entries written without events (an import) show in the document count.
    if (docs !== this.#docs + added.length) return false;
    for (const content of added) {
      for (const term of this.#termsOfText(content)) {
        const n = this.#df.get(term);
        if (n !== undefined) this.#df.set(term, n + 1);
      }
    }
    return true;
  }

  #clear(): void {
    this.#seq = -1;
    this.#docs = 0;
    this.#df = new Map();
  }
}

/**
 * Each term's document count: the frequent terms' from the impact index, whose triggers
 * keep the same counts in step (`check` compares them), the rest from fts5vocab (their
 * lists are short). A term in no document counts 0.
 */
function countsOf(terms: readonly string[]) {
  return sql`SELECT t.value AS term, coalesce((SELECT docs FROM impact_terms WHERE term = t.value),
      (SELECT doc FROM entries_fts_vocab WHERE term = t.value), 0) AS doc
    FROM json_each(${JSON.stringify(terms)}) t`;
}

/** The events after `seq`, each stored capture with its entry's content (one more than CATCH_UP_MAX at most). */
function eventsAfter(seq: number) {
  return sql`SELECT ev.seq AS seq, ev.type AS type, ev.outcome AS outcome, en.content AS content FROM events ev
    LEFT JOIN entries en ON en.id = ev.entry_id AND ev.type = 'CAPTURED' AND ev.outcome IN ('STORED', 'REPLACED')
    WHERE ev.seq > ${seq} ORDER BY ev.seq LIMIT ${CATCH_UP_MAX + 1}`;
}
