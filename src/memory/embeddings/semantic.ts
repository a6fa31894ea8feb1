import type { MemoryEventRecord } from '../../contract/events.ts';
import { SEMANTIC_CAPTURE } from '../../contract/policy.ts';
import type { Db } from '../../db/client.ts';
import type { Writer } from '../../db/writer.ts';
import type { Embedder } from './embedder.ts';
import { EmbedQueue } from './queue.ts';
import { type VectorMatch, VectorMatrix } from './vector-index.ts';
import { vectorCounts } from './vector-store.ts';

/** What the semantic layer needs of a workspace: reads, and its one writer. */
export interface WorkspaceAccess {
  id: string;
  db: Db;
  writer: Pick<Writer, 'run'>;
}

/** A capture's vector, made before its write, and the stored entries it resembles. */
export interface CapturePlan {
  model: string;
  dim: number;
  vector: Float32Array;
  docs: number;
  /** Entries at or above the link threshold, most similar first. */
  neighbours: VectorMatch[];
}

/** What `stats` says of a workspace's vectors. */
export interface SemanticStats {
  model: string;
  dim: number;
  /** Entries holding a current vector of the model. */
  vectors: number;
  /** Entries still lacking one (being filled in by the queue). */
  lacking: number;
  thresholds: typeof SEMANTIC_CAPTURE;
}

export type SemanticLog = (message: string, fields: Record<string, unknown>) => void;

export interface SemanticOptions {
  embedder: Embedder;
  /** Bytes all workspaces' cached matrices may hold together; the least recently used go first. */
  cacheBytes: number;
  log: SemanticLog;
  /** Texts per background embedding request. */
  batchSize?: number;
}

/**
 * One workspace's vectors: the cached matrix recall scans and capture compares against,
 * and the background queue that fills in what is missing.
 */
export class SemanticWorkspace {
  readonly id: string;
  readonly embedder: Embedder;
  readonly matrix: VectorMatrix;
  readonly queue: EmbedQueue;
  access: WorkspaceAccess;
  used = 0;

  constructor(access: WorkspaceAccess, opts: SemanticOptions) {
    this.id = access.id;
    this.access = access;
    this.embedder = opts.embedder;
    this.matrix = new VectorMatrix({ model: opts.embedder.model, dim: opts.embedder.dim });
    this.queue = new EmbedQueue(this, opts);
  }

  /** The matrix, brought up to the table. */
  async vectors(): Promise<VectorMatrix> {
    await this.matrix.refresh(this.access.db);
    return this.matrix;
  }

  /** The workspace's vector counts for the model, and the thresholds capture applies. */
  async stats(): Promise<SemanticStats> {
    const { model, dim } = this.embedder;
    const counts = await vectorCounts(this.access.db, { model, dim });
    return { model, dim, vectors: counts.current, lacking: counts.lacking, thresholds: SEMANTIC_CAPTURE };
  }

  /**
   * With an inline embedder (glove): the capture's vector and its nearest stored entries,
   * computed before the write so the write itself stays short. Null with a network
   * embedder: its vector comes later, from the queue.
   */
  async planCapture(content: string): Promise<CapturePlan | null> {
    if (!this.embedder.inline) return null;
    const { vectors, docs } = await this.embedder.embed(this.access.db, [content], 'document');
    const vector = vectors[0]!;
    const matrix = await this.vectors();
    const want = SEMANTIC_CAPTURE.linksMax + SEMANTIC_CAPTURE.similarMax + 2;
    const neighbours = (await matrix.search(vector, want)).filter((m) => m.cosine >= SEMANTIC_CAPTURE.link);
    return { model: this.embedder.model, dim: this.embedder.dim, vector, docs, neighbours };
  }
}

/**
 * The embedding binding of a server: one embedder, and per workspace a cached matrix and
 * a background queue. Created only when SPHERE_EMBEDDINGS is not `off`; with it off
 * nothing of this is loaded.
 */
export class Semantic {
  readonly embedder: Embedder;
  readonly #opts: SemanticOptions;
  readonly #workspaces = new Map<string, SemanticWorkspace>();
  #tick = 0;

  constructor(opts: SemanticOptions) {
    this.embedder = opts.embedder;
    this.#opts = opts;
  }

  /** The workspace's semantic state (its access is refreshed: views are routes, any one will do). */
  workspace(access: WorkspaceAccess): SemanticWorkspace {
    let ws = this.#workspaces.get(access.id);
    if (!ws) {
      ws = new SemanticWorkspace(access, this.#opts);
      this.#workspaces.set(access.id, ws);
      this.#trim();
      ws.queue.schedule(true);
    }
    ws.access = access;
    ws.used = ++this.#tick;
    return ws;
  }

  /** Committed writes: new or changed content gets its vector from the queue. */
  onCommitted(events: readonly MemoryEventRecord[]): void {
    for (const e of events) {
      const ws = this.#workspaces.get(e.workspace);
      if (!ws) continue;
      if (e.type === 'UPDATED' || e.type === 'APPENDED') ws.queue.schedule(true);
      else if (e.type === 'CAPTURED') ws.queue.schedule(false);
    }
  }

  /** Bytes held by the model and every cached matrix. */
  get bytes(): number {
    let total = this.embedder.bytes;
    for (const ws of this.#workspaces.values()) total += ws.matrix.bytes;
    return total;
  }

  /** Drops the least recently used workspaces' matrices while the cache is over its budget. */
  #trim(): void {
    const byAge = [...this.#workspaces.values()].sort((a, b) => a.used - b.used);
    let total = byAge.reduce((s, ws) => s + ws.matrix.bytes, 0);
    for (const ws of byAge.slice(0, -1)) {
      if (total <= this.#opts.cacheBytes) break;
      if (ws.queue.busy) continue;
      total -= ws.matrix.bytes;
      this.#workspaces.delete(ws.id);
    }
  }

  /** Stops every queue and waits for the work in flight. */
  async close(): Promise<void> {
    await Promise.all([...this.#workspaces.values()].map((ws) => ws.queue.close()));
  }

  /** Waits until every workspace's queue has nothing left to do (tests, benchmarks). */
  async settled(): Promise<void> {
    await Promise.all([...this.#workspaces.values()].map((ws) => ws.queue.idle()));
  }
}
