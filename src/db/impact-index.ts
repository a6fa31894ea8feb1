import type { InValue } from '@libsql/client';
import { type SQL, sql } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import type { Db } from './client.ts';
import { ANY_KEY, type PlannedWrite } from './planned-write.ts';

/**
 * The shape of the impact index (drizzle/0004_impact.sql): which terms get a list and how
 * long the lists are. Changing these changes only speed, never a ranking; `reindex`
 * applies them.
 */
export const IMPACT_INDEX: {
  readonly scale: number;
  readonly k1: number;
  readonly b: number;
  readonly frequentMinDocs: number;
  readonly frequentShare: number;
  readonly headPostings: number;
} = {
  /** Term weights are stored × this, as integers (the migration's triggers use the same). */
  scale: 10_000,
  /** FTS5's bm25() constants. */
  k1: 1.2,
  b: 0.75,
  /**
   * A term gets a list when it is in at least this many documents and in `frequentShare`
   * of them: below that FTS5 ranks its matches faster than a list can be read. Measured on
   * the bench corpus, the keyword arm took as long with lists for terms of 4,000 to 8,000
   * documents as without (100k entries), and a fifth longer with lists at 10k entries,
   * where every listed term had fewer than 10,000; from a million entries the share
   * decides (1 % of them).
   */
  frequentMinDocs: 10_000,
  frequentShare: 0.01,
  /** Each list holds at least this many of its term's heaviest postings (whole weight levels). */
  headPostings: 2_000,
};

export type ImpactShape = Pick<typeof IMPACT_INDEX, 'frequentMinDocs' | 'frequentShare' | 'headPostings'>;

/** What FTS5 keeps about the whole table: documents and tokens (bm25's N and average length). */
export interface FtsTotals {
  rows: number;
  tokens: number;
}

/** One SQLite varint (1–9 bytes, big-endian, 7 bits a byte; the ninth byte has all 8). */
function readVarint(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const b = bytes[at + i] ?? 0;
    value = value * 128 + (b & 0x7f);
    if (b < 0x80) return [value, at + i + 1];
  }
  return [value * 256 + (bytes[at + 8] ?? 0), at + 9];
}

const asBytes = (blob: unknown): Uint8Array =>
  blob instanceof Uint8Array ? blob : blob instanceof ArrayBuffer ? new Uint8Array(blob) : new Uint8Array();

/**
 * FTS5's totals record (row 1 of entries_fts_data: the row count, then the token count of
 * the one column), which is what bm25() itself reads for N and the average length.
 */
export async function readFtsTotals(db: Db): Promise<FtsTotals> {
  const [row] = await db.all<{ block: unknown }>(sql`SELECT block FROM ${FTS_TOTALS}`);
  return decodeFtsTotals(row?.block);
}

/** Where FTS5 keeps its totals record, for reading it inside another statement. */
export const FTS_TOTALS = sql`entries_fts_data WHERE id = 1`;

/** The totals record's two varints (a missing record: an empty table). */
export function decodeFtsTotals(block: unknown): FtsTotals {
  const bytes = asBytes(block);
  if (bytes.length === 0) return { rows: 0, tokens: 0 };
  const [rows, next] = readVarint(bytes, 0);
  const [tokens] = readVarint(bytes, next);
  return { rows, tokens };
}

const HEX = "'123456789ABCDEF'";
/** Byte `i` (1-based) of a blob, in SQL: its two hex digits looked up ('0' is not found: 0). */
const byteSql = (blob: string, i: number) =>
  `(instr(${HEX}, substr(hex(${blob}), ${2 * i - 1}, 1)) * 16 + instr(${HEX}, substr(hex(${blob}), ${2 * i}, 1)))`;
/** The docsize varint in SQL, up to three bytes (two million tokens, far beyond any entry). */
const docLengthSql = (blob: string) => {
  const [b1, b2, b3] = [1, 2, 3].map((i) => byteSql(blob, i));
  return `CASE WHEN ${b1} < 128 THEN ${b1}
    WHEN ${b2} < 128 THEN ((${b1} - 128) * 128 + ${b2})
    ELSE (((${b1} - 128) * 128 + (${b2} - 128)) * 128 + ${b3}) END`;
};

/**
 * The term weight as the triggers compute it (impact_scratch_postings), character for
 * character, so that the rebuild and the triggers agree on every posting's key.
 */
const IMPACT_SQL = 'CAST((tf * 2.2) / (tf + 1.2 * (0.25 + 0.75 * dl / m.avgdl)) * 10000 AS INTEGER)';

export interface ImpactBuildReport {
  terms: number;
  postings: number;
  avgdl: number | null;
}

/**
 * Rebuilds the impact index from entries_fts, inside the caller's write transaction:
 * chooses the frequent terms (IMPACT_INDEX), fixes the reference average length, and
 * writes each frequent term's head. Below the size where any term is frequent the index
 * stays empty, and the triggers do nothing.
 *
 * @example await writer.run(({ db }) => rebuildImpactIndex(db)); // { terms: 212, postings: 431000, avgdl: 55.1 }
 */
export async function rebuildImpactIndex(db: Db, shape: ImpactShape = IMPACT_INDEX): Promise<ImpactBuildReport> {
  await db.run(sql`DELETE FROM impact_terms`);
  await db.run(sql`DELETE FROM impact_postings`);
  await db.run(sql`DELETE FROM impact_docs`);
  await db.run(sql`DELETE FROM impact_meta`);
  const { rows, tokens } = await readFtsTotals(db);
  const minDocs = Math.max(shape.frequentMinDocs, Math.ceil(rows * shape.frequentShare));
  if (rows < minDocs) return { terms: 0, postings: 0, avgdl: null };
  const avgdl = tokens / rows;
  await db.run(sql`INSERT INTO impact_meta (id, avgdl) VALUES (1, ${avgdl})`);
  const frequent = await db.all<{ term: string; docs: number }>(
    sql`SELECT term, doc AS docs FROM impact_fts_terms WHERE doc >= ${minDocs}`,
  );
  let postings = 0;
  // Every posting of every frequent term passes through the temp tables (tens of millions
  // at a million entries): on disk, not in this process's memory. SQLite allows the switch
  // only before the connection's first temp object; it stays for the connection (temp
  // tables and large sorts then spill to files the page cache holds anyway).
  await db.run(sql`PRAGMA temp_store = FILE`).catch(() => {});
  try {
    await db.run(sql`CREATE TEMP TABLE impact_forward (n INTEGER, id INTEGER, tf INTEGER, dl INTEGER)`);
    for (const [i, { term, docs }] of frequent.entries()) {
      postings += await buildTermHead(db, { id: i + 1, term, docs: Number(docs) }, shape.headPostings);
    }
    await db.run(sql`INSERT INTO impact_docs (n, dl, terms)
      SELECT n, max(dl), group_concat(id || ':' || tf, ' ') FROM (SELECT * FROM temp.impact_forward ORDER BY n, id)
      GROUP BY n`);
  } finally {
    await db.run(sql`DROP TABLE IF EXISTS temp.impact_build`);
    await db.run(sql`DROP TABLE IF EXISTS temp.impact_forward`);
  }
  return { terms: frequent.length, postings, avgdl };
}

/** Every posting of one term with its weight, into temp.impact_build (emptied first). */
const weighTermSql = (term: string): SQL[] => [
  sql`CREATE TEMP TABLE IF NOT EXISTS impact_build (n INTEGER PRIMARY KEY, tf INTEGER, dl INTEGER, impact INTEGER)`,
  sql`DELETE FROM temp.impact_build`,
  sql`INSERT INTO temp.impact_build (n, tf, dl, impact)
    SELECT n, tf, dl, ${sql.raw(IMPACT_SQL)} FROM (
      SELECT i.n AS n, i.tf AS tf, ${sql.raw(docLengthSql('d.sz'))} AS dl
      FROM (SELECT doc AS n, count(*) AS tf FROM impact_fts_instances WHERE term = ${term} GROUP BY doc) i
      JOIN entries_fts_docsize d ON d.id = i.n
    ) CROSS JOIN impact_meta m`,
];

async function weighTerm(db: Db, term: string): Promise<void> {
  for (const statement of weighTermSql(term)) await db.run(statement);
}

/** The weight level at which a term's head ends: the head holds at least headPostings postings. */
async function headThreshold(db: Db, headPostings: number): Promise<number> {
  const [row] = await db.all<{ impact: number }>(
    sql`SELECT impact FROM temp.impact_build ORDER BY impact DESC LIMIT 1 OFFSET ${headPostings - 1}`,
  );
  return row ? Number(row.impact) : 0;
}

/** One frequent term: its head, its row in impact_terms, and its counts for the entries' rows. */
async function buildTermHead(
  db: Db,
  { id, term, docs }: { id: number; term: string; docs: number },
  headPostings: number,
): Promise<number> {
  await weighTerm(db, term);
  const threshold = await headThreshold(db, headPostings);
  await db.run(sql`INSERT INTO impact_postings (term, impact, n, tf, dl)
    SELECT ${term}, impact, n, tf, dl FROM temp.impact_build WHERE impact >= ${threshold}`);
  await db.run(sql`INSERT INTO temp.impact_forward (n, id, tf, dl) SELECT n, ${id}, tf, dl FROM temp.impact_build`);
  await db.run(
    sql`INSERT INTO impact_terms (id, term, threshold, docs) VALUES (${id}, ${term}, ${threshold}, ${docs})`,
  );
  const [row] = await db.all<{ c: number }>(sql`SELECT count(*) AS c FROM impact_postings WHERE term = ${term}`);
  return Number(row?.c ?? 0);
}

const dialect = new SQLiteSyncDialect();
/** Drizzle SQL as the plain statement a planned write reads or queues. */
const plain = (statement: SQL): { sql: string; args: InValue[] } => {
  const { sql: text, params } = dialect.sqlToQuery(statement);
  return { sql: text, args: params as InValue[] };
};

/**
 * Gives one more term a list beside the lists already there, as one planned write: what
 * rebuildImpactIndex writes for that term, against the reference length already fixed (or
 * today's, for a workspace's first list), and the term's counts added to its entries'
 * rows. From then on the triggers keep it in step. It reads the full-text totals and the
 * term's row, then queues statements that need no answer (the head's threshold is computed
 * in SQL), so that on an embedded file all of its SQL runs on the write thread, away from
 * the requests, and a hosted database takes it in two requests. It runs alone in its group
 * (it writes what any capture reads, and a capture's triggers read what it writes).
 * Resolves with the term's document count, or null when it has a list already or is no
 * longer in enough documents (a reindex or a delete came first).
 *
 * @example await writer.run(listTermWrite('deploy')); // 12840
 */
export function listTermWrite(term: string, shape: ImpactShape = IMPACT_INDEX): PlannedWrite<number | null> {
  return {
    keys: [ANY_KEY],
    reads: [
      plain(sql`SELECT block FROM ${FTS_TOTALS}`),
      plain(sql`SELECT
        EXISTS (SELECT 1 FROM impact_terms WHERE term = ${term}) AS listed,
        (SELECT doc FROM impact_fts_terms WHERE term = ${term}) AS docs,
        (SELECT coalesce(max(id), 0) + 1 FROM impact_terms) AS id`),
    ],
    decide(plan, [totals, known]) {
      const { rows, tokens } = decodeFtsTotals(totals?.rows[0]?.block);
      const minDocs = Math.max(shape.frequentMinDocs, Math.ceil(rows * shape.frequentShare));
      const row = known?.rows[0];
      const docs = Number(row?.docs ?? 0);
      if (!row || Number(row.listed) || docs < minDocs) return null;
      for (const statement of listTermSql(term, Number(row.id), docs, tokens / rows, shape.headPostings)) {
        const { sql: text, args } = plain(statement);
        plan.run(text, args);
      }
      return docs;
    },
  };
}

/** listTermWrite's statements: the term weighed, its row, its head, its counts in the entries' rows. */
function listTermSql(term: string, id: number, docs: number, avgdl: number, headPostings: number): SQL[] {
  // The head's lowest weight level: the weight of its headPostings-th heaviest posting.
  const threshold = sql`coalesce((SELECT impact FROM temp.impact_build ORDER BY impact DESC LIMIT 1 OFFSET ${headPostings - 1}), 0)`;
  return [
    sql`INSERT INTO impact_meta (id, avgdl) VALUES (1, ${avgdl}) ON CONFLICT (id) DO NOTHING`,
    ...weighTermSql(term),
    sql`INSERT INTO impact_terms (id, term, threshold, docs) VALUES (${id}, ${term}, ${threshold}, ${docs})`,
    sql`INSERT INTO impact_postings (term, impact, n, tf, dl)
      SELECT ${term}, impact, n, tf, dl FROM temp.impact_build
      WHERE impact >= (SELECT threshold FROM impact_terms WHERE term = ${term})`,
    // Bound numbers arrive as reals: cast, so that the key reads "7:2", not "7.0:2".
    sql`INSERT INTO impact_docs (n, dl, terms)
      SELECT n, dl, CAST(${id} AS INTEGER) || ':' || tf FROM temp.impact_build WHERE true
      ON CONFLICT (n) DO UPDATE SET terms = terms || ' ' || excluded.terms`,
    sql`DROP TABLE IF EXISTS temp.impact_build`,
  ];
}

export interface ImpactCheck {
  terms: number;
  postings: number;
  /** The terms whose list and document count were recomputed from FTS5 and compared. */
  sampled: string[];
  problems: string[];
}

/**
 * Compares the impact index with FTS5 on a sample of its terms (the least frequent ones,
 * whose recomputation is cheapest, and one at random): each list must hold exactly the
 * postings a rebuild would write, and each document count must be FTS5's. Runs inside a
 * transaction (it writes a temp table).
 */
export async function checkImpactIndex(db: Db, sample = 3): Promise<ImpactCheck> {
  const problems: string[] = [];
  const [counts] = await db.all<{ terms: number; postings: number; meta: number }>(sql`SELECT
    (SELECT count(*) FROM impact_terms) AS terms, (SELECT count(*) FROM impact_postings) AS postings,
    (SELECT count(*) FROM impact_meta) AS meta`);
  const terms = Number(counts?.terms ?? 0);
  const postings = Number(counts?.postings ?? 0);
  if (terms > 0 && Number(counts?.meta) !== 1) problems.push('the impact index has terms but no reference length');
  const picked = await db.all<{ id: number; term: string; threshold: number; docs: number }>(sql`
    SELECT id, term, threshold, docs FROM (SELECT * FROM impact_terms ORDER BY docs LIMIT ${sample})
    UNION SELECT id, term, threshold, docs FROM (SELECT * FROM impact_terms ORDER BY random() LIMIT 1)`);
  try {
    for (const t of picked) problems.push(...(await checkTerm(db, t)));
  } finally {
    await db.run(sql`DROP TABLE IF EXISTS temp.impact_build`);
  }
  return { terms, postings, sampled: picked.map((t) => t.term), problems };
}

async function checkTerm(
  db: Db,
  { id, term, threshold, docs }: { id: number; term: string; threshold: number; docs: number },
): Promise<string[]> {
  const problems: string[] = [];
  const [vocab] = await db.all<{ doc: number }>(sql`SELECT doc FROM impact_fts_terms WHERE term = ${term}`);
  if (Number(vocab?.doc ?? 0) !== docs) {
    problems.push(`impact index: "${term}" counts ${docs} documents, the full-text index ${vocab?.doc ?? 0}`);
  }
  await weighTerm(db, term);
  const differ = (a: SQL, b: SQL) => db.all<{ c: number }>(sql`SELECT count(*) AS c FROM (${a} EXCEPT ${b})`);
  const stored = sql`SELECT impact, n, tf, dl FROM impact_postings WHERE term = ${term}`;
  const fresh = sql`SELECT impact, n, tf, dl FROM temp.impact_build WHERE impact >= ${threshold}`;
  const [[missing], [extra]] = await Promise.all([differ(fresh, stored), differ(stored, fresh)]);
  if (Number(missing?.c) > 0 || Number(extra?.c) > 0) {
    problems.push(`impact index: "${term}" misses ${missing?.c} and has ${extra?.c} postings that should not be there`);
  }
  // The entries' rows: "id:tf" of this term in exactly the documents FTS5 has it in.
  const key = ` ${id}:`;
  const counted = sql`SELECT n, CAST(substr(' ' || terms, instr(' ' || terms, ${key}) + ${key.length}) AS INTEGER) AS tf
    FROM impact_docs WHERE instr(' ' || terms, ${key}) > 0`;
  const all = sql`SELECT n, tf FROM temp.impact_build`;
  const [[lost], [stray]] = await Promise.all([differ(all, counted), differ(counted, all)]);
  if (Number(lost?.c) > 0 || Number(stray?.c) > 0) {
    problems.push(`impact index: "${term}" is missing from ${lost?.c} entries' term rows and wrong in ${stray?.c}`);
  }
  return problems;
}
