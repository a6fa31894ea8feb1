import { getTableColumns, getTableName, type InferSelectModel, type SQL, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db, RootDb } from './client.ts';
import { edges, entries, revisions } from './schema.ts';

/**
 * Whole-row reads of one table without drizzle's query builder: the SQL is written once
 * and rows are mapped by a loop made from the table's columns. For the reads that return
 * many rows per request (entries and edges by id), the builder and its generic row mapper
 * cost a third more than the SQL itself.
 */
export interface RowReader<T extends SQLiteTable> {
  /** Maps one row holding the table's columns (by name; other columns are ignored). */
  read(row: Record<string, unknown>): InferSelectModel<T>;
  /** Runs `SELECT <every column> FROM <table>` + `rest` and maps each row as `db.select().from(table)` would. */
  all(db: Db, rest: SQL): Promise<InferSelectModel<T>[]>;
  /** The statement `all` runs, to send together with others (readTogether); map its rows with `read`. */
  query(rest: SQL): SQL;
  /**
   * The same read of only some columns (by key), for a caller that knows which fields it
   * will use: each value a row does not need is one less for the driver to convert.
   */
  only<K extends keyof InferSelectModel<T>>(keys: readonly K[]): ColumnReader<Pick<InferSelectModel<T>, K>>;
}

/** A read of some of a table's columns: its statement and row mapper. */
export interface ColumnReader<R> {
  read(row: Record<string, unknown>): R;
  query(rest: SQL): SQL;
}

interface Field {
  key: string;
  name: string;
  decode: (value: unknown) => unknown;
}

function columnReader<R>(table: SQLiteTable, fields: readonly Field[]): ColumnReader<R> {
  const columns = fields.map((f) => `"${f.name}"`).join(', ');
  const select = sql.raw(`SELECT ${columns} FROM "${getTableName(table)}" `);
  return {
    read(row) {
      const out: Record<string, unknown> = {};
      for (const f of fields) {
        const value = row[f.name];
        out[f.key] = value === null || value === undefined ? null : f.decode(value);
      }
      return out as R;
    },
    query: (rest) => sql`${select}${rest}`,
  };
}

export function rowReader<T extends SQLiteTable>(table: T): RowReader<T> {
  type Row = InferSelectModel<T>;
  const fields: Field[] = Object.entries(getTableColumns(table)).map(([key, column]) => ({
    key,
    name: column.name,
    decode: (value: unknown) => column.mapFromDriverValue(value),
  }));
  const whole = columnReader<Row>(table, fields);
  // A few column sets are asked for, each by one kind of selection; keep their readers.
  const subsets = new Map<string, ColumnReader<unknown>>();
  return {
    ...whole,
    async all(db, rest) {
      const rows = await db.all<Record<string, unknown>>(whole.query(rest));
      return rows.map(whole.read);
    },
    only<K extends keyof Row>(keys: readonly K[]) {
      const wanted = new Set<string>(keys as readonly string[]);
      const name = fields.flatMap((f) => (wanted.has(f.key) ? [f.key] : [])).join(',');
      let reader = subsets.get(name);
      if (!reader) {
        reader = columnReader(
          table,
          fields.filter((f) => wanted.has(f.key)),
        );
        if (subsets.size < 64) subsets.set(name, reader);
      }
      return reader as ColumnReader<Pick<Row, K>>;
    },
  };
}

/** A list of values as one bound JSON parameter, for `x IN (SELECT value FROM json_each(?))`. */
export const jsonList = (values: readonly string[]): SQL =>
  sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`;

/** Entries per statement of `pagesPerId`: one compound SELECT each, well under SQLite's 500 terms. */
const PAGE_IDS_PER_STATEMENT = 200;

/**
 * Each id's own page of rows: `pageOf(id)` is a whole SELECT (with its own ORDER BY and
 * LIMIT), and the pages of up to 200 ids go as one UNION ALL statement, so a batch of
 * entries costs one statement and each entry only what its page holds. Rows come back
 * per id, in each page's order, mapped by `read`.
 */
export async function pagesPerId<T>(
  db: Db,
  ids: readonly string[],
  pageOf: (id: string) => SQL,
  read: (row: Record<string, unknown>) => T,
): Promise<Map<string, T[]>> {
  const out = new Map<string, T[]>();
  for (let i = 0; i < ids.length; i += PAGE_IDS_PER_STATEMENT) {
    const pages = ids
      .slice(i, i + PAGE_IDS_PER_STATEMENT)
      .map((id) => sql`SELECT ${id} AS page_of, * FROM (${pageOf(id)})`);
    for (const row of await db.all<Record<string, unknown>>(sql.join(pages, sql` UNION ALL `))) {
      const id = String(row.page_of);
      const list = out.get(id);
      if (list) list.push(read(row));
      else out.set(id, [read(row)]);
    }
  }
  return out;
}

export const entryRows = rowReader(entries);

/**
 * Rows read with their text come at most this many a statement. A SQL thread takes other
 * workspaces' calls between two statements, never during one: 200 entries of 100,000
 * characters read as one 20 MB statement held a reader thread 20–70 ms beside other work,
 * and every other workspace's read on that thread waited for it.
 */
export const TEXT_ROWS_PER_STATEMENT = 25;

/**
 * The entries `rest` picks (`rest` follows `FROM entries e`: its joins, WHERE, ORDER BY and
 * LIMIT), in its order, with the columns `names` lists (as `e.…`; `e.*` for all) read by
 * `read`: their row numbers in one statement, then the rows TEXT_ROWS_PER_STATEMENT a
 * statement. An entry gone in between (forgotten) is left out.
 */
export async function entriesInOrder<R>(
  db: Db,
  rest: SQL,
  names: SQL,
  read: (row: Record<string, unknown>) => R,
): Promise<R[]> {
  const picked = (await db.all<{ n: number }>(sql`SELECT e.n FROM entries e ${rest}`)).map((r) => r.n);
  const byN = new Map<number, R>();
  for (let i = 0; i < picked.length; i += TEXT_ROWS_PER_STATEMENT) {
    const chunk = picked.slice(i, i + TEXT_ROWS_PER_STATEMENT);
    const rows = await db.all<Record<string, unknown>>(
      sql`SELECT e.n AS row_n, ${names} FROM entries e WHERE e.n IN (SELECT value FROM json_each(${JSON.stringify(chunk)}))`,
    );
    for (const row of rows) byN.set(Number(row.row_n), read(row));
  }
  return picked.flatMap((n) => (byN.has(n) ? [byN.get(n) as R] : []));
}

/** Every column of `table` but `content`, as `<alias>.<name>`. */
function columnsButContent(table: SQLiteTable, alias: string): SQL {
  return sql.raw(
    Object.values(getTableColumns(table))
      .filter((c) => c.name !== 'content')
      .map((c) => `${alias}.${c.name}`)
      .join(', '),
  );
}

/**
 * Every column of an entry but its text, as `e.<name>` for a query over `entries e`: for
 * reads that take no more of the text than they show (an `entries` page without `content`,
 * and entryColumnsCut). A text is up to 100,000 characters, and thirty aliases of a
 * 200-entry list over long texts would otherwise move 600 MB of it to the request thread.
 */
export const ENTRY_COLUMNS_BUT_CONTENT: SQL = columnsButContent(entries, 'e');
const REVISION_COLUMNS_BUT_CONTENT: SQL = columnsButContent(revisions, 'r');

/** `alias`'s columns, its text only as far as `chars` characters, and `content_cut` (see contentCut). */
const columnsCut = (butContent: SQL, alias: string, chars: number): SQL =>
  sql`${butContent}, substr(${sql.raw(alias)}.content, 1, ${chars}) AS content, length(${sql.raw(alias)}.content) > ${chars} AS content_cut`;

/**
 * Every column of an entry over `entries e`, its text only as far as `chars` characters, and
 * `content_cut` (see contentCut) for the rows whose text is longer: what recall's candidates
 * and the `entry` loader read.
 */
export const entryColumnsCut = (chars: number): SQL => columnsCut(ENTRY_COLUMNS_BUT_CONTENT, 'e', chars);

/** The same for a revision over `revisions r`: what pages of revisions read. */
export const revisionColumnsCut = (chars: number): SQL => columnsCut(REVISION_COLUMNS_BUT_CONTENT, 'r', chars);

/** Whether a row read with entryColumnsCut or revisionColumnsCut holds only the start of its text. */
export const contentCut = (row: Record<string, unknown>): boolean => Number(row.content_cut) === 1;

export const edgeRows = rowReader(edges);
export const revisionRows = rowReader(revisions);

/**
 * Runs independent reads as one batch: one request to a hosted database instead of one
 * round trip each, one read transaction (a consistent view) on an embedded file. Rows come
 * back keyed by column name, one list per query, in order.
 */
export async function readTogether(db: Db, queries: readonly SQL[]): Promise<Record<string, unknown>[][]> {
  if (queries.length === 0) return [];
  const items = queries.map((q) => db.all<Record<string, unknown>>(q));
  if (items.length === 1) return [await items[0]!];
  // A transaction has no batch of its own; inside one, the reads already share its view.
  if (typeof (db as unknown as Partial<RootDb>).batch !== 'function') return Promise.all(items);
  const [first, ...rest] = items as unknown as Parameters<RootDb['batch']>[0];
  return (await (db as unknown as RootDb).batch([first, ...rest])) as Record<string, unknown>[][];
}
