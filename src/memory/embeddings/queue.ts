import { autoLink } from './auto-link.ts';
import type { SemanticOptions, SemanticWorkspace } from './semantic.ts';
import { entriesLackingVectors, entriesWithOldWeights, lastEntryN, writeVector } from './vector-store.ts';

/** Retry delays after a failed batch: doubling from 1 s up to a minute. */
const BACKOFF_MS = { first: 1_000, max: 60_000 };

type Pending = Awaited<ReturnType<typeof entriesLackingVectors>>;

/**
 * Fills in a workspace's missing vectors after commit, so a capture never waits on the
 * embedder. The table is the queue: each pass reads entries lacking a current vector
 * (past a cursor, from the start after content changed), a batch at a time, so memory stays
 * one batch whatever the backlog. A failed batch is logged and retried with backoff; the
 * entries meanwhile recall by keyword.
 */
export class EmbedQueue {
  readonly #ws: SemanticWorkspace;
  readonly #opts: SemanticOptions;
  readonly #batch: number;
  #cursor = 0;
  /** Counts the restarts from the first entry, so a pass never moves the cursor past one made meanwhile. */
  #restarts = 0;
  #again = false;
  #running: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #delay = 0;
  #closed = false;
  /** The document count at the last re-weighing (glove): the next comes once the workspace doubles. */
  #weighedAt = 0;

  constructor(ws: SemanticWorkspace, opts: SemanticOptions) {
    this.#ws = ws;
    this.#opts = opts;
    this.#batch = opts.batchSize ?? 64;
  }

  get busy(): boolean {
    return this.#running !== null || this.#timer !== null;
  }

  /** Asks for a pass; `fromStart` when content of older entries may have changed. */
  schedule(fromStart: boolean): void {
    if (this.#closed) return;
    if (fromStart) {
      this.#cursor = 0;
      this.#restarts++;
    }
    if (this.#timer) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#drain().finally(() => {
      this.#running = null;
      if (this.#again && !this.#closed && !this.#timer) {
        this.#again = false;
        this.schedule(false);
      }
    });
  }

  /**
   * A capture was stored. An inline embedder's captures are stored with their vectors, so
   * a pass would find nothing to embed (it cost two reads of the table a capture); it is
   * asked for only when the workspace has grown enough to re-weigh (see #reweigh).
   */
  captured(): void {
    if (!this.#ws.embedder.inline || this.#reweighDue(this.#ws.matrix.size)) this.schedule(false);
  }

  #reweighDue(docs: number): boolean {
    return docs >= 2 * this.#weighedAt && docs >= 8;
  }

  /** Resolves once nothing is queued, running or waiting to retry. */
  async idle(): Promise<void> {
    while (this.#running || this.#timer || this.#again) {
      if (this.#running) await this.#running;
      else await new Promise((r) => setTimeout(r, 20));
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  async #drain(): Promise<void> {
    const { db } = this.#ws.access;
    const model = { model: this.#ws.embedder.model, dim: this.#ws.embedder.dim };
    try {
      // Every entry up to `last` is looked at by this pass: the next starts after them.
      // Without it a pass that finds nothing leaves the cursor where it was, and each
      // capture's pass read the whole table again (110 ms at 100k entries).
      const last = await lastEntryN(db);
      let restarts = this.#restarts;
      let cursor = this.#cursor;
      // The model works on the next batch while this one is stored and linked, so it never
      // waits on the database. A batch read ahead and then not used (closed, restarted) is
      // dropped; its entries are read again.
      let ahead: Ahead | null = null;
      for (;;) {
        if (this.#closed) return;
        if (restarts !== this.#restarts) [restarts, cursor] = [this.#restarts, 0];
        const current = ahead?.after === cursor ? ahead : await this.#ahead(cursor);
        ahead = null;
        if (current.rows.length === 0) break;
        const next = current.rows[current.rows.length - 1]!.n;
        if (restarts === this.#restarts) ahead = await this.#ahead(next);
        await this.#store(current.rows, await current.embedded);
        cursor = next;
        if (restarts === this.#restarts) this.#cursor = cursor;
      }
      if (restarts === this.#restarts) this.#cursor = Math.max(cursor, last);
      if (this.#ws.embedder.kind === 'glove') await this.#reweigh();
      this.#delay = 0;
    } catch (error) {
      this.#delay = Math.min(BACKOFF_MS.max, this.#delay === 0 ? BACKOFF_MS.first : this.#delay * 2);
      this.#opts.log('embedding failed; entries recall by keyword until it succeeds', {
        workspace: this.#ws.id,
        model: model.model,
        retryInMs: this.#delay,
        err: error instanceof Error ? error.message : String(error),
      });
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.schedule(false);
      }, this.#delay);
      this.#timer.unref();
    }
  }

  /** Re-weighs vectors made when the workspace had under half its documents now (glove's IDF). */
  async #reweigh(): Promise<void> {
    const { db } = this.#ws.access;
    const model = { model: this.#ws.embedder.model, dim: this.#ws.embedder.dim };
    const matrix = await this.#ws.vectors();
    const docs = matrix.size;
    if (!this.#reweighDue(docs)) return;
    for (;;) {
      if (this.#closed) return;
      const rows = await entriesWithOldWeights(db, model, Math.floor(docs / 2), this.#batch);
      if (rows.length === 0) break;
      await this.#embedAndStore(rows, false);
    }
    this.#weighedAt = docs;
  }

  /** The entries lacking vectors after rowid `after`, a batch of them, and their embedding under way. */
  async #ahead(after: number): Promise<Ahead> {
    const { db } = this.#ws.access;
    const { model, dim } = this.#ws.embedder;
    const rows = await entriesLackingVectors(db, { model, dim }, after, this.#batch);
    const embedded = rows.length === 0 ? Promise.resolve(null) : this.#embed(rows);
    // Awaited by #store, or dropped: never an unhandled rejection meanwhile.
    embedded.catch(() => undefined);
    return { after, rows, embedded };
  }

  #embed(rows: Pending): Promise<Embedded> {
    return this.#ws.embedder.embed(
      this.#ws.access.db,
      rows.map((r) => r.content),
      'document',
    );
  }

  /** Embeds a batch and stores it (re-weighing: the vectors are replaced, nothing is linked). */
  async #embedAndStore(rows: Pending, link = true): Promise<void> {
    await this.#store(rows, await this.#embed(rows), link);
  }

  /** Stores a batch's vectors in one write and, for new vectors of a network model, links look-alikes. */
  async #store(rows: Pending, embedded: Embedded | null, link = true): Promise<void> {
    if (!embedded) return;
    const { writer } = this.#ws.access;
    const embedder = this.#ws.embedder;
    const model = { model: embedder.model, dim: embedder.dim };
    const { vectors, docs } = embedded;
    const stored = await writer.run(async (scope) => {
      const out: { id: string; vector: Float32Array }[] = [];
      for (const [i, r] of rows.entries()) {
        const vector = vectors[i]!;
        if (await writeVector(scope.db, model, { entryId: r.id, contentHash: r.contentHash, docs, vector })) {
          out.push({ id: r.id, vector });
        }
      }
      return out;
    });
    // Inline models linked at capture; a network model's links come now. The batch's searches
    // share passes over the matrix, and its links one transaction (each link still its own
    // write and LINKED event).
    if (!link || embedder.inline) return;
    const matrix = await this.#ws.vectors();
    const { link: floor, linksMax } = embedder.thresholds;
    const found = await Promise.all(
      stored.map(async ({ id, vector }) => ({
        entryId: id,
        near: (await matrix.search(vector, linksMax + 1, null, floor)).filter((m) => m.id !== id && m.cosine >= floor),
      })),
    );
    await autoLink(writer, found);
  }
}

type Embedded = { vectors: Float32Array[]; docs: number };

/** A batch read ahead: the entries after `after`, and their vectors being made. */
interface Ahead {
  after: number;
  rows: Pending;
  embedded: Promise<Embedded | null>;
}
