import { auditLog } from '../db/schema.ts';
import type { Embedder } from '../memory/embeddings/embedder.ts';
import {
  type ConfiguredModel,
  dropAllVectors,
  entriesLackingVectors,
  vectorCounts,
  writeVector,
} from '../memory/embeddings/vector-store.ts';
import type { OpsWorkspace } from './workspace.ts';

export interface VectorReindexReport {
  workspace: string;
  model: string;
  /** Vectors dropped before the rebuild (any model). */
  dropped: number;
  /** Vectors made. */
  vectors: number;
  ms: number;
}

/** Texts per embedding call and per write: one write stays short beside a running server. */
const BATCH = 64;

/**
 * Rebuilds every vector of a workspace with `embedder`: drops them all, then embeds the
 * entries a batch at a time, each batch its own short write. Vectors are a projection
 * (no event); links made from earlier vectors are data and stay. An audit row records the run.
 */
export async function reindexVectors(
  ws: OpsWorkspace,
  embedder: Embedder,
  actor: string,
): Promise<VectorReindexReport> {
  const started = performance.now();
  const model = { model: embedder.model, dim: embedder.dim };
  const dropped = await ws.writer.run(({ db }) => dropAllVectors(db));
  let vectors = 0;
  for (let cursor = 0; ; ) {
    const rows = await entriesLackingVectors(ws.db, model, cursor, BATCH);
    if (rows.length === 0) break;
    const made = await embedder.embed(
      ws.db,
      rows.map((r) => r.content),
      'document',
    );
    vectors += await ws.writer.run(async ({ db }) => {
      let n = 0;
      for (const [i, r] of rows.entries()) {
        const row = { entryId: r.id, contentHash: r.contentHash, docs: made.docs, vector: made.vectors[i]! };
        if (await writeVector(db, model, row)) n++;
      }
      return n;
    });
    cursor = rows[rows.length - 1]!.n;
  }
  await ws.writer.run(({ db, now }) =>
    db
      .insert(auditLog)
      .values({ at: now, actor, action: 'reindex_vectors', details: JSON.stringify({ model: model.model, vectors }) }),
  );
  return { workspace: ws.id, model: model.model, dropped, vectors, ms: Math.round(performance.now() - started) };
}

/** What `check` says of the vectors for the configured model (it is no integrity problem: the server fills them in). */
export interface VectorCheck {
  model: string;
  current: number;
  lacking: number;
}

export async function checkVectors(ws: OpsWorkspace, model: ConfiguredModel): Promise<VectorCheck> {
  return { model: model.model, ...(await vectorCounts(ws.db, model)) };
}
