import type { MemoryEventRecord } from '../../contract/events.ts';
import type { Db } from '../../db/client.ts';
import type { Writer } from '../../db/writer.ts';
import type { Embedder } from './embedder.ts';
import type { SemanticThresholds } from './profile.ts';
import { EmbedQueue } from './queue.ts';
import { type EmbedderStatus, RECONNECT_MS, UnavailableEmbedder } from './unavailable.ts';
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
  /** The model's thresholds the neighbours are judged by. */
  thresholds: SemanticThresholds;
}

/** What `stats` says of a workspace's vectors. */
export interface SemanticStats {
  model: string;
  dim: number;
  /** Entries holding a current vector of the model. */
  vectors: number;
  /** Entries still lacking one (being filled in by the queue). */
  lacking: number;
  /** The model's calibrated thresholds (its profile's, or the defaults). */
  thresholds: SemanticThresholds;
  /** The model profile's name (`glove` for glove, `custom` for one no profile knows). */
  profile: string;
  /** The embedder's state: vectors are made only while it is ready. */
  embedder: EmbedderStatus;
}

export type SemanticLog = (message: string, fields: Record<string, unknown>) => void;

export interface SemanticOptions {
  embedder: Embedder;
  /** Bytes all workspaces' cached matrices may hold together; the least recently used go first. */
  cacheBytes: number;
  log: SemanticLog;
  /** Texts per background embedding request. */
  batchSize?: number;
  /** Where the embedder's recovery is told (defaults to `log`). */
  notice?: SemanticLog;
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
  readonly #status: () => EmbedderStatus;

  constructor(access: WorkspaceAccess, opts: SemanticOptions, status: () => EmbedderStatus) {
    this.id = access.id;
    this.access = access;
    this.#status = status;
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
    const embedder = this.#status();
    const { thresholds } = this.embedder;
    const profile = this.embedder.kind === 'glove' ? 'glove' : (this.embedder.profile?.name ?? 'custom');
    return { model, dim, vectors: counts.current, lacking: counts.lacking, thresholds, profile, embedder };
  }

  /**
   * With an inline embedder (glove): the capture's vector and its nearest stored entries,
   * computed before the write so the write itself stays short. Null with a network
   * embedder: its vector comes later, from the queue.
   */
  async planCapture(content: string): Promise<CapturePlan | null> {
    if (!this.embedder.inline) return null;
    // Two independent reads: on a hosted database they cost one round trip, not two.
    const [{ vectors, docs }, matrix] = await Promise.all([
      this.embedder.embed(this.access.db, [content], 'document'),
      this.vectors(),
    ]);
    const vector = vectors[0]!;
    const { thresholds } = this.embedder;
    const want = thresholds.linksMax + thresholds.similarMax + 2;
    const neighbours = await matrix.search(vector, want, null, thresholds.link);
    return { model: this.embedder.model, dim: this.embedder.dim, vector, docs, neighbours, thresholds };
  }
}

/**
 * The embedding binding of a server: one embedder, and per workspace a cached matrix and
 * a background queue. Created only when SPHERE_EMBEDDINGS is not `off`; with it off
 * nothing of this is loaded. An embedder that cannot be reached at start-up leaves the
 * binding unavailable (see `reconnect`) rather than the server down.
 */
export class Semantic {
  #opts: SemanticOptions;
  readonly #workspaces = new Map<string, SemanticWorkspace>();
  #tick = 0;
  #status: EmbedderStatus;
  #retry: NodeJS.Timeout | null = null;
  #attempt: Promise<void> | null = null;
  #closed = false;

  constructor(opts: SemanticOptions) {
    this.#opts = opts;
    this.#status = readyStatus(opts.embedder, new Date());
  }

  get embedder(): Embedder {
    return this.#opts.embedder;
  }

  /** The embedder's state, for `/health` and `stats`. */
  status(): EmbedderStatus {
    return this.#status;
  }

  get ready(): boolean {
    return this.#status.state === 'ready';
  }

  /**
   * The binding whose embedder failed to start: it asks `connect` again with backoff, and
   * meanwhile recall runs on keywords (its vector arm says why) and captures are stored.
   * Once `connect` answers, every workspace seen meanwhile gets its vectors from the queue.
   */
  static unavailable(
    opts: Omit<SemanticOptions, 'embedder'>,
    model: { kind: Embedder['kind']; model: string; thresholds?: SemanticThresholds },
    connect: () => Promise<Embedder>,
    error: unknown,
  ): Semantic {
    const why = () => semantic.#status.reason ?? 'not reached yet';
    const semantic = new Semantic({
      ...opts,
      embedder: new UnavailableEmbedder(model.kind, model.model, why, model.thresholds),
    });
    semantic.#failed(connect, error);
    return semantic;
  }

  /** Records a failed attempt, logs why (once per reason, not once per attempt), and schedules the next. */
  #failed(connect: () => Promise<Embedder>, error: unknown): void {
    const previous = this.#status;
    const attempts = previous.attempts + 1;
    const delay = Math.min(RECONNECT_MS.max, RECONNECT_MS.first * 2 ** previous.attempts);
    const now = new Date();
    const reason = error instanceof Error ? error.message : String(error);
    const since = previous.state === 'unavailable' ? previous.since : now;
    const { model } = this.embedder;
    const retryAt = new Date(now.getTime() + delay);
    this.#status = { state: 'unavailable', model, dim: null, reason, attempts, retryAt, since };
    if (reason !== previous.reason) {
      this.#opts.log(`embeddings unavailable: ${reason}; recall is by keyword only until the embedder answers`, {
        model,
        attempts,
        retryInMs: delay,
      });
    }
    this.#retry = setTimeout(() => {
      this.#retry = null;
      this.#attempt = this.#reconnect(connect).finally(() => {
        this.#attempt = null;
      });
    }, delay);
    this.#retry.unref();
  }

  async #reconnect(connect: () => Promise<Embedder>): Promise<void> {
    let embedder: Embedder;
    try {
      embedder = await connect();
    } catch (error) {
      if (!this.#closed) this.#failed(connect, error);
      return;
    }
    if (this.#closed) return;
    const { since, attempts } = this.#status;
    this.#opts = { ...this.#opts, embedder };
    this.#status = readyStatus(embedder, new Date());
    (this.#opts.notice ?? this.#opts.log)('embeddings ready; filling in the vectors of entries stored meanwhile', {
      model: embedder.model,
      dim: embedder.dim,
      attempts,
      unavailableMs: Date.now() - since.getTime(),
    });
    // The workspaces seen meanwhile hold the stand-in embedder: start them over with the real one.
    for (const old of [...this.#workspaces.values()]) {
      void old.queue.close();
      const ws = this.#create(old.access);
      ws.used = old.used;
    }
  }

  #create(access: WorkspaceAccess): SemanticWorkspace {
    const ws = new SemanticWorkspace(access, this.#opts, () => this.#status);
    this.#workspaces.set(access.id, ws);
    if (this.ready) ws.queue.schedule(true);
    return ws;
  }

  /** The workspace's semantic state (its access is refreshed: views are routes, any one will do). */
  workspace(access: WorkspaceAccess): SemanticWorkspace {
    let ws = this.#workspaces.get(access.id);
    if (!ws) {
      ws = this.#create(access);
      this.#trim();
    }
    ws.access = access;
    ws.used = ++this.#tick;
    return ws;
  }

  /** Committed writes: new or changed content gets its vector from the queue. */
  onCommitted(events: readonly MemoryEventRecord[]): void {
    if (!this.ready) return;
    for (const e of events) {
      const ws = this.#workspaces.get(e.workspace);
      if (!ws) continue;
      if (e.type === 'UPDATED' || e.type === 'APPENDED') ws.queue.schedule(true);
      else if (e.type === 'CAPTURED') ws.queue.captured();
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

  /** Stops every queue and the reconnecting, and waits for the work in flight. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
    await this.#attempt;
    await Promise.all([...this.#workspaces.values()].map((ws) => ws.queue.close()));
    await this.embedder.close?.();
  }

  /** Waits until every workspace's queue has nothing left to do (tests, benchmarks). */
  async settled(): Promise<void> {
    await Promise.all([...this.#workspaces.values()].map((ws) => ws.queue.idle()));
  }
}

function readyStatus(embedder: Embedder, since: Date): EmbedderStatus {
  const { model, dim } = embedder;
  return { state: 'ready', model, dim, reason: null, attempts: 0, retryAt: null, since };
}
