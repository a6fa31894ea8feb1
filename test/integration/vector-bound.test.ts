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

/** Unit vectors around 40 topics, so that many pairs are close (as retellings of one event are). */
function corpus(rows: number, seed: number): Float32Array[] {
  let s = seed;
  const rand = () => {
    s = (s * 48271) % 2147483647;
    return s / 2147483647 - 0.5;
  };
  const unit = (v: Float32Array) => {
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const topics = Array.from({ length: 40 }, () => unit(Float32Array.from({ length: DIM }, rand)));
  return Array.from({ length: rows }, (_, i) => {
    const spread = 0.02 + (i % 7) * 0.03;
    return unit(topics[i % topics.length]!.map((x) => x + spread * rand()));
  });
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

describe('vector matrix with its bound', () => {
  let dir: string;
  let client: Client;
  const live: { id: string; v: Float32Array }[] = [];
  // Drawn like the rows but not stored: retellings of what is there.
  const queries: Float32Array[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sphere-bound-'));
    client = createClient({ url: `file:${join(dir, 'v.db')}` });
    await client.executeMultiple(`
      CREATE TABLE entry_vectors (seq INTEGER PRIMARY KEY AUTOINCREMENT, entry_id TEXT NOT NULL UNIQUE,
        model TEXT NOT NULL, dim INTEGER NOT NULL, content_hash TEXT NOT NULL DEFAULT '', docs INTEGER NOT NULL DEFAULT 0,
        vector BLOB NOT NULL);
      CREATE TABLE entry_vector_drops (seq INTEGER PRIMARY KEY AUTOINCREMENT, vector_seq INTEGER NOT NULL, entry_id TEXT NOT NULL);
      CREATE TRIGGER entry_vectors_ad AFTER DELETE ON entry_vectors BEGIN
        INSERT INTO entry_vector_drops (vector_seq, entry_id) VALUES (old.seq, old.entry_id);
      END;`);
    const vectors = corpus(ROWS + 200, 7);
    queries.push(...vectors.splice(ROWS));
    for (let start = 0; start < ROWS; start += 2_000) {
      const batch = vectors.slice(start, start + 2_000).map((v, i) => {
        live.push({ id: `e${start + i}`, v });
        return {
          sql: 'INSERT INTO entry_vectors (entry_id, model, dim, vector) VALUES (?, ?, ?, ?)',
          args: [`e${start + i}`, model.model, DIM, Buffer.from(v.buffer)],
        };
      });
      await client.batch(batch, 'write');
    }
  });
  afterAll(() => {
    client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps exactly what a plain scan keeps, before and after rows are removed beside it', async () => {
    const matrix = new VectorMatrix(model);
    const db = drizzleFor(client);
    await matrix.refresh(db);
    const compare = async () => {
      let close = 0;
      for (const q of queries) {
        const capture = plainScan(live, q, 10, 0.78);
        close += capture.length;
        expect(await matrix.search(q, 10, null, 0.78)).toEqual(capture);
        expect(await matrix.search(q, 60)).toEqual(plainScan(live, q, 60, Number.NEGATIVE_INFINITY));
      }
      return close;
    };
    // The corpus has what the bound must not lose: many rows at or above the link cosine.
    expect(await compare()).toBeGreaterThan(1_000);

    // A third removed by another connection: the matrix drops them (and compacts) without reloading.
    await client.execute('DELETE FROM entry_vectors WHERE CAST(substr(entry_id, 2) AS INTEGER) % 3 = 0');
    live.splice(0, live.length, ...live.filter((_, i) => i % 3 !== 0));
    await matrix.refresh(db);
    expect(matrix.size).toBe(live.length);
    await compare();
  });
});
