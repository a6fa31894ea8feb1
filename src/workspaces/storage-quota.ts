import { sql } from 'drizzle-orm';
import { DomainError } from '../contract/errors.ts';
import type { RootDb } from '../db/client.ts';

/** The quota of every workspace in token mode when SPHERE_MAX_WORKSPACE_MB does not say. */
export const DEFAULT_TOKEN_WORKSPACE_MB = 1024;

/** How soon after a write the size may be read again; writes in between count by estimate. */
const REMEASURE_MS = 250;
/** Workspaces whose size is remembered; the least recently used beyond this are read again when next used. */
const REMEMBERED_MAX = 10_000;

/**
 * The bytes a database's pages in use take: pages × page size, less the free pages a
 * forget left behind (SQLite reuses them before it grows the file). An embedded file
 * and a hosted database answer it alike, from their own header, without a scan.
 */
export async function databaseBytes(db: Pick<RootDb, 'all'>): Promise<number> {
  const [row] = await db.all<{ used: number }>(
    sql`SELECT (c.page_count - f.freelist_count) * s.page_size AS used
        FROM pragma_page_count() AS c, pragma_freelist_count() AS f, pragma_page_size() AS s`,
  );
  return Number(row?.used ?? 0);
}

/**
 * What a write of these strings may add to a database: their UTF-8 bytes three times (the
 * row, its full-text postings and, for a change, the revision that keeps the old text),
 * plus two pages for the rest (event row, index entries): a small write adds far less on
 * average, but now and then splits a page of a table or an index, and the estimate bridges
 * the moments between two reads of the real size, so it must not fall short of them.
 */
export function writeEstimate(...texts: readonly (string | null | undefined)[]): number {
  let bytes = 0;
  for (const t of texts) if (t) bytes += Buffer.byteLength(t, 'utf8');
  return 3 * bytes + WRITE_OVERHEAD_BYTES;
}

/** Two pages of SQLite's default size. */
const WRITE_OVERHEAD_BYTES = 8 * 1024;

interface Size {
  /** Pages in use × page size at the last read. */
  measured: number;
  /** Estimates of the writes admitted that the last read may not hold. */
  pending: number;
  /** The part of `pending` whose writes have finished: the next read to begin holds them. */
  settled: number;
  /** Whether a read has completed: until then the size is unknown. */
  ready: boolean;
  /** When the last read began (performance.now()). */
  readAt: number;
  /** Whether a write committed since the last read began. */
  dirty: boolean;
  reading: Promise<void> | null;
}

/**
 * Storage quotas (SPHERE_MAX_WORKSPACE_MB). Each workspace's size is read from its
 * database (see databaseBytes) by the first write that needs it, and again by a write that
 * finds it changed once the last read is REMEASURE_MS old, or that would be refused while
 * estimates of finished writes count in the size (they are ceilings; the read replaces them
 * with what those writes took); none without a quota. Writes in between count by estimate
 * (writeEstimate). A write that would take the workspace past its quota is refused with
 * QUOTA_EXCEEDED before it is queued, so nothing of it is stored; reads, forget, unlink
 * and maintenance are never refused (what forget frees counts at the next read).
 */
export class StorageMeter {
  readonly #sizes = new Map<string, Size>();

  /** One workspace's quota and size, as a request sees them. */
  workspace(workspace: { id: string; db: Pick<RootDb, 'all'> }, quotaBytes: number | null): WorkspaceStorage {
    return {
      quotaBytes,
      admit: (estimate) => this.#admit(workspace, quotaBytes, estimate),
      wrote: (estimate) => {
        if (quotaBytes === null) return;
        const s = this.#entry(workspace.id);
        s.dirty = true;
        s.settled += estimate;
      },
      size: async () => {
        await this.#read(workspace, true);
        return this.#size(workspace.id);
      },
    };
  }

  async #admit(workspace: { id: string; db: Pick<RootDb, 'all'> }, quota: number | null, estimate: number) {
    if (quota === null) return;
    const s = this.#sizes.get(workspace.id);
    if (!s?.ready || (s.dirty && this.#due(s))) await this.#read(workspace, false);
    let size = this.#size(workspace.id);
    // Before refusing, a read of its own: forget (or an operator) may have made room since,
    // and estimates of finished writes (each a ceiling) give way to what they really took.
    const entry = this.#entry(workspace.id);
    if (size + estimate > quota && (this.#due(entry) || entry.settled > 0)) {
      await this.#read(workspace, true);
      size = this.#size(workspace.id);
    }
    if (size + estimate > quota) {
      throw new DomainError(
        'QUOTA_EXCEEDED',
        `workspace ${workspace.id} holds ${mb(size)} MB of its ${mb(quota)} MB quota (SPHERE_MAX_WORKSPACE_MB); ` +
          'this write would take it past it. Forget entries to make room; reads and forget still work',
        { sizeBytes: size, quotaBytes: quota },
      );
    }
    this.#entry(workspace.id).pending += estimate;
  }

  /** Reads the size (one read at a time per workspace; `fresh` waits for a read begun now). */
  async #read(workspace: { id: string; db: Pick<RootDb, 'all'> }, fresh: boolean): Promise<void> {
    const s = this.#entry(workspace.id);
    if (s.reading && !fresh) return s.reading;
    if (s.reading) await s.reading.catch(() => {});
    // What finished before the read begins is in what it reads; a write still queued or in
    // flight may commit after the read's snapshot, so its estimate stays until a later read.
    const settledBefore = s.settled;
    s.readAt = performance.now();
    s.dirty = false;
    s.reading = databaseBytes(workspace.db)
      .then((bytes) => {
        s.measured = bytes;
        s.ready = true;
        s.pending = Math.max(0, s.pending - settledBefore);
        s.settled = Math.max(0, s.settled - settledBefore);
      })
      .finally(() => {
        s.reading = null;
      });
    return s.reading;
  }

  #due(s: Size): boolean {
    return performance.now() - s.readAt >= REMEASURE_MS;
  }

  #size(id: string): number {
    const s = this.#sizes.get(id);
    return s ? s.measured + s.pending : 0;
  }

  #entry(id: string): Size {
    let s = this.#sizes.get(id);
    if (s) {
      // Most recently used last, so the first is the one to forget.
      this.#sizes.delete(id);
    } else {
      s = { measured: 0, pending: 0, settled: 0, ready: false, readAt: 0, dirty: false, reading: null };
      const oldest = this.#sizes.size >= REMEMBERED_MAX ? this.#sizes.keys().next().value : undefined;
      if (oldest !== undefined) this.#sizes.delete(oldest);
    }
    this.#sizes.set(id, s);
    return s;
  }
}

/** A workspace's storage as one request sees it (Context.storage). */
export interface WorkspaceStorage {
  /** The quota in bytes; null when there is none. */
  readonly quotaBytes: number | null;
  /** Refuses with QUOTA_EXCEEDED a write of about `estimate` bytes that would take the workspace past its quota. */
  admit(estimate: number): Promise<void>;
  /**
   * Tells that a write admitted with `estimate` has finished (stored or not), so the next
   * read of the size holds it and the next write reads the size again when due.
   */
  wrote(estimate: number): void;
  /** The size now, read afresh. */
  size(): Promise<number>;
}

const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);
