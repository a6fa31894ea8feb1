import Database from 'libsql';

/**
 * The tokenizer of entries_fts (`porter unicode61`), as SQLite itself runs it: the impact
 * index is keyed by the terms FTS5 stores (stemmed), and a query word has to be looked up
 * under the same term. A JavaScript stemmer would only approximate FTS5's; this asks FTS5.
 *
 * A private in-memory database holding one FTS5 table and nothing else: no workspace data
 * goes through it, only the words to tokenize, and it is cleared after each call.
 */
let tokenizer: { db: InstanceType<typeof Database>; insert: Statement; read: Statement; clear: Statement } | null =
  null;
type Statement = ReturnType<InstanceType<typeof Database>['prepare']>;

function open() {
  if (tokenizer) return tokenizer;
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE words USING fts5(word, tokenize='porter unicode61');
    CREATE VIRTUAL TABLE word_terms USING fts5vocab(words, instance);`);
  tokenizer = {
    db,
    insert: db.prepare('INSERT INTO words(rowid, word) VALUES (?, ?)'),
    read: db.prepare('SELECT doc, term FROM word_terms'),
    clear: db.prepare('DELETE FROM words'),
  };
  return tokenizer;
}

/**
 * The FTS5 term of each word, or null for a word FTS5 reads as no term or as several.
 *
 * @example ftsTermsOf(['Running', 'cafés', 'a-b']) // ['run', 'cafe', null]
 */
export function ftsTermsOf(words: readonly string[]): (string | null)[] {
  const t = open();
  const found: string[][] = words.map(() => []);
  try {
    t.db.exec('BEGIN');
    for (const [i, w] of words.entries()) t.insert.run([i + 1, w]);
    for (const row of t.read.all([]) as { doc: number; term: string }[]) found[row.doc - 1]?.push(row.term);
  } finally {
    t.clear.run([]);
    t.db.exec('COMMIT');
  }
  return found.map((terms) => (terms.length === 1 ? terms[0]! : null));
}
