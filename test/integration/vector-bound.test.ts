import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzleFor } from '../../src/db/client.ts';
import { type VectorMatch, VectorMatrix } from '../../src/memory/embeddings/vector-index.ts';

const DIM = 100;
const ROWS = 12_000;
const model = { model: 'bound-test', dim: DIM };

const lcg = (seed: number) => {
  let s = seed;
  return () => {
    s = (s * 48271) % 2147483647;
    return s / 2147483647 - 0.5;
  };
};
const unit = (v: Float32Array) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

/**
 * Unit vectors around 40 topics, so that many pairs are close (as retellings of one event
 * are), all leaning one way as glove's sums do (half their energy along two directions),
 * with every fiftieth a copy of an earlier one: ties must keep the order a scan gives them.
 */
function corpus(rows: number, seed: number): Float32Array[] {
  const rand = lcg(seed);
  const common = [unit(Float32Array.from({ length: DIM }, rand)), unit(Float32Array.from({ length: DIM }, rand))];
  const topics = Array.from({ length: 40 }, () => unit(Float32Array.from({ length: DIM }, rand)));
  const out: Float32Array[] = [];
  for (let i = 0; i < rows; i++) {
    if (i % 50 === 49) {
      out.push(out[i - 17]!);
      continue;
    }
    const spread = 0.02 + (i % 7) * 0.03;
    const lean = (i % 3) * 0.4;
    out.push(
      unit(
        topics[i % topics.length]!.map((x, d) => x + spread * rand() + lean * (common[0]![d]! + 0.5 * common[1]![d]!)),
      ),
    );
  }
  return out;
}

/** Unit vectors in no particular direction (Gaussian components). */
function spread(rows: number, seed: number): Float32Array[] {
  const rand = lcg(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 0.5 || 1e-12)) * Math.cos(2 * Math.PI * (rand() + 0.5));
  return Array.from({ length: rows }, () => unit(Float32Array.from({ length: DIM }, gauss)));
}

/** Every row scored with a plain loop, best first (ties in table order), as the matrix did before it had a bound. */
function plainScan(rows: { id: string; v: Float32Array }[], q: Float32Array, k: number, floor: number) {
  const scored: VectorMatch[] = [];
  for (const { id, v } of rows) {
    let s = 0;
    for (let i = 0; i < DIM; i++) s += v[i]! * q[i]!;
    if (s >= floor) scored.push({ id, cosine: s });
  }
  return scored.sort((a, b) => b.cosine - a.cosine).slice(0, k);
}

/** A table of vectors like entry_vectors, in a file of its own. */
async function vectorTable(dir: string, name: string, vectors: readonly Float32Array[]): Promise<Client> {
  const client = createClient({ url: `file:${join(dir, `${name}.db`)}` });
  await client.executeMultiple(`
    CREATE TABLE entry_vectors (seq INTEGER PRIMARY KEY AUTOINCREMENT, entry_id TEXT NOT NULL UNIQUE,
      model TEXT NOT NULL, dim INTEGER NOT NULL, content_hash TEXT NOT NULL DEFAULT '', docs INTEGER NOT NULL DEFAULT 0,
      vector BLOB NOT NULL);
    CREATE TABLE entry_vector_drops (seq INTEGER PRIMARY KEY AUTOINCREMENT, vector_seq INTEGER NOT NULL, entry_id TEXT NOT NULL);
    CREATE TRIGGER entry_vectors_ad AFTER DELETE ON entry_vectors BEGIN
      INSERT INTO entry_vector_drops (vector_seq, entry_id) VALUES (old.seq, old.entry_id);
    END;`);
  for (let start = 0; start < vectors.length; start += 2_000) {
    const batch = vectors.slice(start, start + 2_000).map((v, i) => ({
      sql: 'INSERT INTO entry_vectors (entry_id, model, dim, vector) VALUES (?, ?, ?, ?)',
      args: [`e${start + i}`, model.model, DIM, Buffer.from(v.buffer, v.byteOffset, v.byteLength)],
    }));
    await client.batch(batch, 'write');
  }
  return client;
}

describe('vector matrix with its bound', () => {
  let dir: string;
  const clients: Client[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sphere-bound-'));
  });
  afterAll(() => {
    for (const c of clients) c.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Searches as capture and recall ask them, each alone and then all at once (sharing passes). */
  async function compare(matrix: VectorMatrix, live: { id: string; v: Float32Array }[], queries: Float32Array[]) {
    const some = new Set(live.filter((_, i) => i % 4 === 1).map((r) => r.id));
    const asks = queries.flatMap((q) => [
      { q, k: 10, floor: 0.78, allowed: null },
      { q, k: 60, floor: Number.NEGATIVE_INFINITY, allowed: null },
      { q, k: 20, floor: Number.NEGATIVE_INFINITY, allowed: some },
    ]);
    const expected = asks.map(({ q, k, floor, allowed }) =>
      plainScan(
        live.filter((r) => !allowed || allowed.has(r.id)),
        q,
        k,
        floor,
      ),
    );
    for (const [i, a] of asks.entries()) expect(await matrix.search(a.q, a.k, a.allowed, a.floor)).toEqual(expected[i]);
    const together = await Promise.all(asks.map((a) => matrix.search(a.q, a.k, a.allowed, a.floor)));
    for (const [i, found] of together.entries()) expect(found).toEqual(expected[i]);
    return expected.filter((_, i) => i % 3 === 0).reduce((n, e) => n + e.length, 0);
  }

  it('keeps exactly what a plain scan keeps, before and after rows are removed beside it', async () => {
    const vectors = corpus(ROWS + 200, 7);
    // Drawn like the rows but not stored: retellings of what is there.
    const queries = vectors.splice(ROWS);
    const client = await vectorTable(dir, 'topics', vectors);
    clients.push(client);
    const live = vectors.map((v, i) => ({ id: `e${i}`, v }));
    const matrix = new VectorMatrix(model);
    const db = drizzleFor(client);
    await matrix.refresh(db);
    // The corpus has what the bound must not lose: many rows at or above the link cosine.
    expect(await compare(matrix, live, queries)).toBeGreaterThan(1_000);

    // A third removed by another connection: the matrix drops them (and compacts) without reloading.
    await client.execute('DELETE FROM entry_vectors WHERE CAST(substr(entry_id, 2) AS INTEGER) % 3 = 0');
    live.splice(0, live.length, ...live.filter((_, i) => i % 3 !== 0));
    await matrix.refresh(db);
    expect(matrix.size).toBe(live.length);
    await compare(matrix, live, queries);
  });

  it('keeps exactly what a plain scan keeps while a new basis is chosen beside its searches', async () => {
    const vectors = corpus(9_000 + 60, 13);
    const queries = vectors.splice(9_000);
    const client = await vectorTable(dir, 'growing', vectors.slice(0, 4_500));
    clients.push(client);
    const matrix = new VectorMatrix(model);
    const db = drizzleFor(client);
    await matrix.refresh(db);
    // Doubled: the next refresh starts choosing a new basis and returns before it is done.
    await client.batch(
      vectors.slice(4_500).map((v, i) => ({
        sql: 'INSERT INTO entry_vectors (entry_id, model, dim, vector) VALUES (?, ?, ?, ?)',
        args: [`e${4_500 + i}`, model.model, DIM, Buffer.from(v.buffer, v.byteOffset, v.byteLength)],
      })),
      'write',
    );
    await matrix.refresh(db);
    const live = vectors.map((v, i) => ({ id: `e${i}`, v }));
    await compare(matrix, live, queries);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await compare(matrix, live, queries);
  });

  it('answers a search asked at any moment as the pass before it ends', async () => {
    const vectors = spread(500, 5);
    const client = await vectorTable(dir, 'small', vectors);
    clients.push(client);
    const matrix = new VectorMatrix(model);
    await matrix.refresh(drizzleFor(client));
    for (let ticks = 0; ticks < 8; ticks++) {
      const first = matrix.search(vectors[0]!, 3);
      let chained = first;
      for (let i = 0; i < ticks; i++) chained = chained.then((x) => x);
      const second = await chained.then(() => matrix.search(vectors[1]!, 3));
      expect(second[0]!.id).toBe('e1');
    }
  });

  it('keeps exactly what a plain scan keeps among vectors in no particular direction', async () => {
    const vectors = spread(ROWS + 40, 11);
    const queries = vectors.splice(ROWS);
    // Some queries have look-alikes: stored copies of them, nudged.
    for (const [i, q] of queries.slice(0, 10).entries())
      vectors[i * 997] = unit(q.map((x, d) => x + 0.02 * ((d % 5) - 2)));
    const client = await vectorTable(dir, 'spread', vectors);
    clients.push(client);
    const matrix = new VectorMatrix(model);
    await matrix.refresh(drizzleFor(client));
    expect(
      await compare(
        matrix,
        vectors.map((v, i) => ({ id: `e${i}`, v })),
        queries,
      ),
    ).toBeGreaterThanOrEqual(10);
  });
});
