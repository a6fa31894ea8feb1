import type { Client, InStatement, TransactionMode } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzleFor } from '../../src/db/client.ts';
import { FtsTerms } from '../../src/db/fts-terms.ts';
import { DocumentFrequencies } from '../../src/memory/embeddings/document-frequencies.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { openWorkspaceDb } from '../helpers/workspace-db.ts';

const CAPTURE = `mutation ($input: CaptureInput!) { capture(input: $input) { outcome entry { id } } }`;
const APPEND = `mutation ($input: AppendInput!) { append(input: $input) { entry { id } } }`;
const UPDATE = `mutation ($input: UpdateInput!) { update(input: $input) { entry { id } } }`;
const FORGET = `mutation ($id: ID!) { forget(input: { id: $id }) { forgotten } }`;
const LINK = `mutation ($input: LinkInput!) { link(input: $input) { edge { weight } } }`;

const WORDS = [
  'dog',
  'dogs',
  'hiking',
  'hiked',
  'bread',
  'sourdough',
  'deploy',
  'database',
  'migration',
  'friday',
  'grandma',
  'trail',
  'budget',
  'office',
  'painting',
  'pottery',
  'café',
  'naïve',
  'the',
  'never',
];

/** A text of some of the words, seeded: retellings share words, as turns of one conversation do. */
function text(seed: number): string {
  let s = seed + 1;
  const picked: string[] = [];
  for (let i = 0; i < 3 + (seed % 9); i++) {
    s = (s * 48271) % 2147483647;
    picked.push(WORDS[s % WORDS.length]!);
  }
  return `${picked.join(' ')} #${seed % 5}`;
}

describe('document frequencies kept between embeddings', () => {
  let t: TestServer;
  let other: Client;
  const ws = 'frequencies';
  const fts = new FtsTerms();
  const terms = [...new Set(fts.termsOf(WORDS).filter((x): x is string => x !== null)), 'absent'];
  const ids: string[] = [];

  beforeAll(async () => {
    t = await startTestServer();
    await t.gqlOk(CAPTURE, { input: { content: text(0) } }, { workspace: ws });
    other = await openWorkspaceDb(t.dbPath(ws));
  });
  afterAll(async () => {
    other?.close();
    await t?.stop();
  });

  const capture = async (seed: number, replaces?: string) => {
    const { capture } = await t.gqlOk<{ capture: { outcome: string; entry: { id: string } } }>(
      CAPTURE,
      { input: { content: text(seed), replaces } },
      { workspace: ws },
    );
    if (capture.outcome === 'STORED' || capture.outcome === 'REPLACED') ids.push(capture.entry.id);
  };

  /** What counting afresh gives: FTS5's own row count and each term's documents. */
  async function counted() {
    const docs = Number((await other.execute('SELECT count(*) AS n FROM entries_fts_docsize')).rows[0]!.n);
    const df = new Map<string, number>();
    for (const term of terms) {
      const row = (await other.execute({ sql: 'SELECT doc FROM entries_fts_vocab WHERE term = ?', args: [term] }))
        .rows[0];
      if (row && Number(row.doc) > 0) df.set(term, Number(row.doc));
    }
    return { docs, df };
  }

  it('answers what counting afresh would, through captures, revisions, forgetting and an import', async () => {
    const kept = new DocumentFrequencies((content) => fts.termsOfText(content));
    // Every statement it sends, batches included, counted where it reads fts5vocab.
    let counts = 0;
    const seen = (stmt: InStatement) => {
      if ((typeof stmt === 'string' ? stmt : stmt.sql).includes('entries_fts_vocab')) counts++;
    };
    const watched = new Proxy(other, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key === 'execute') {
          return (stmt: InStatement) => {
            seen(stmt);
            return target.execute(stmt);
          };
        }
        if (key === 'batch') {
          return (stmts: InStatement[], mode?: TransactionMode) => {
            stmts.forEach(seen);
            return target.batch(stmts, mode);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const db = drizzleFor(watched);
    const check = async () => expect(await kept.read(db, terms)).toEqual(await counted());

    await check();
    let seed = 1;
    // Stored captures (and duplicates of them, which change nothing) are followed event by
    // event, without counting any term again.
    counts = 0;
    for (; seed < 40; seed++) {
      await capture(seed);
      if (seed % 3 === 0) await check();
    }
    await check();
    expect(counts).toBe(0);
    await capture(seed++, ids[2]);
    await t.gqlOk(LINK, { input: { src: ids[0], dst: ids[1], type: 'RELATES_TO' } }, { workspace: ws });
    await check();
    // Content changed or gone: the counts start over.
    await t.gqlOk(APPEND, { input: { id: ids[3], addition: 'sourdough never again' } }, { workspace: ws });
    await check();
    await t.gqlOk(UPDATE, { input: { id: ids[4], content: 'a café trail' } }, { workspace: ws });
    await capture(seed++);
    await check();
    await t.gqlOk(FORGET, { id: ids[5] }, { workspace: ws });
    counts = 0;
    await check();
    expect(counts).toBe(1);
    // Entries written without events (as an import writes them) show in the document count.
    await other.execute({
      sql: `INSERT INTO entries (id, content, content_hash, kind, status, volatility, volatility_source, importance,
        claim_tag, recall_count, created_at, updated_at)
        VALUES ('imported-1', 'imported dogs and bread', 'h1', 'SEMANTIC', 'ACTIVE', 'EVOLVING', 'default', 0.5, 'UNKNOWN', 0, 0, 0)`,
    });
    await check();
    // More events since the last read than it catches up on.
    for (let i = 0; i < 600; i++) await capture(seed++);
    await check();
  });

  it('tokenizes a whole content as entries_fts does', () => {
    expect(fts.termsOfText('Dogs run; the dog ran. Café naïve a+b')).toEqual(
      ['a', 'b', 'cafe', 'dog', 'naiv', 'ran', 'run', 'the'].sort(),
    );
  });
});
