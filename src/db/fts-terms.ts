import Database from 'libsql';

/**
 * The terms entries_fts stores for words, as SQLite's own `porter unicode61` tokenizer
 * makes them: a scratch in-memory FTS5 table tokenizes the words, so the terms always
 * match `entries_fts_vocab` (no second stemmer to drift from FTS5's). Words map to terms
 * once and are remembered, most recently used kept.
 *
 * @example new FtsTerms().termsOf(['running', 'dogs']) // ['run', 'dog']
 */
export class FtsTerms {
  readonly #db = new Database(':memory:');
  readonly #insert;
  readonly #read;
  readonly #readText;
  readonly #known = new Map<string, string | null>();
  readonly #max: number;

  constructor(max = 200_000) {
    this.#max = max;
    this.#db.exec(`CREATE VIRTUAL TABLE words USING fts5(w, tokenize = 'porter unicode61');
      CREATE VIRTUAL TABLE words_terms USING fts5vocab(words, 'instance');
      CREATE VIRTUAL TABLE words_rows USING fts5vocab(words, 'row');`);
    this.#insert = this.#db.prepare('INSERT INTO words (rowid, w) VALUES (?, ?)');
    this.#read = this.#db.prepare('SELECT doc, term FROM words_terms');
    this.#readText = this.#db.prepare('SELECT term FROM words_rows').pluck();
  }

  /**
   * The distinct terms entries_fts indexes for a whole text: the terms whose document
   * counts its insertion raises by one.
   *
   * @example new FtsTerms().termsOfText('Dogs run; the dog ran.') // ['dog', 'ran', 'run', 'the']
   */
  termsOfText(text: string): string[] {
    this.#db.exec('BEGIN');
    try {
      this.#insert.run(1, text);
      return this.#readText.all() as string[];
    } finally {
      this.#db.exec('ROLLBACK');
    }
  }

  /** Each word's term (null when the tokenizer keeps nothing of it; its first term when it splits). */
  termsOf(words: readonly string[]): (string | null)[] {
    const missing = [...new Set(words.filter((w) => !this.#known.has(w)))];
    if (missing.length > 0) {
      const found = new Map<number, string>();
      this.#db.exec('BEGIN');
      try {
        for (const [i, w] of missing.entries()) this.#insert.run(i + 1, w);
        for (const row of this.#read.all() as { doc: number; term: string }[]) {
          if (!found.has(row.doc)) found.set(row.doc, row.term);
        }
      } finally {
        // Nothing of the scratch table is ever kept.
        this.#db.exec('ROLLBACK');
      }
      if (this.#known.size + missing.length > this.#max) this.#known.clear();
      for (const [i, w] of missing.entries()) this.#known.set(w, found.get(i + 1) ?? null);
    }
    return words.map((w) => this.#known.get(w) ?? null);
  }
}
