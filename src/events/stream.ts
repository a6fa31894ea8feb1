import { Repeater } from '@graphql-yoga/subscription';
import type { MemoryEventRecord } from '../contract/events.ts';
import type { Db } from '../db/client.ts';
import type { EventBus } from './bus.ts';
import { lastSeq, readEventLog } from './log.ts';

export interface StreamOptions {
  /** Replay the log after this seq first; null = live only. */
  sinceSeq: number | null;
  /** Live events held for a subscriber that is not keeping up; past this, it catches up from the log. */
  bufferMax?: number;
  /** Page size when reading the log. */
  pageSize?: number;
  /**
   * While idle, look at the log this often for events the bus never delivered (a Redis
   * restart drops pub/sub messages); 0 turns it off (the in-process bus never drops).
   */
  pollMs?: number;
}

/**
 * One workspace's events, in seq order, each exactly once: the committed log after
 * `sinceSeq`, then live events. Live events wait in a bounded buffer while the log is
 * replayed or the consumer is slow; a gap in seq (a dropped or overflowed live event)
 * is filled from the log, which is the source of truth. Memory per subscriber stays
 * bounded whatever the write rate, and returning the iterator unsubscribes at once.
 */
export function workspaceEvents(
  bus: EventBus,
  db: Db,
  workspace: string,
  opts: StreamOptions,
): AsyncIterableIterator<MemoryEventRecord> {
  const bufferMax = opts.bufferMax ?? 1_000;
  const pageSize = opts.pageSize ?? 500;
  const pollMs = opts.pollMs ?? 0;

  return new Repeater<MemoryEventRecord>(async (push, stop) => {
    const stats = bus.streams;
    let buffer: MemoryEventRecord[] = [];
    let overflowed = false;
    let stopped = false;
    let wake: (() => void) | null = null;
    stats.open++;
    const unsubscribe = bus.subscribe(workspace, (event) => {
      if (buffer.length >= bufferMax) {
        if (!overflowed) stats.overflows++;
        overflowed = true;
      } else {
        buffer.push(event);
        stats.buffered++;
      }
      wake?.();
    });
    const take = (): MemoryEventRecord | undefined => {
      const next = buffer.shift();
      if (next) stats.buffered--;
      return next;
    };
    void stop.then(() => {
      stopped = true;
      wake?.();
    });

    // Live-only streams start after what is committed now, so a later gap can be recognised.
    let last: number = opts.sinceSeq ?? (await lastSeq(db));
    // Emits the log after `last`, up to (not including) `until`.
    const replay = async (until: number | null) => {
      while (!stopped) {
        const page = await readEventLog(db, workspace, last, pageSize);
        for (const event of page) {
          if (stopped || (until !== null && event.seq >= until)) return;
          last = event.seq;
          await push(event);
        }
        if (page.length < pageSize) return;
      }
    };

    try {
      await replay(null);
      while (!stopped) {
        if (overflowed) {
          // Too far behind: drop what is held and read the rest from the log.
          overflowed = false;
          stats.buffered -= buffer.length;
          buffer = [];
          await replay(null);
          continue;
        }
        const next = take();
        if (!next) {
          const idle = await new Promise<boolean>((resolve) => {
            wake = () => resolve(false);
            if (pollMs > 0) setTimeout(() => resolve(true), pollMs).unref();
          });
          wake = null;
          if (idle && !stopped && (await lastSeq(db)) > last) await replay(null);
          continue;
        }
        if (next.seq <= last) continue;
        if (next.seq > last + 1) await replay(next.seq);
        if (stopped) break;
        last = next.seq;
        await push(next);
      }
    } finally {
      unsubscribe();
      stats.buffered -= buffer.length;
      stats.open--;
    }
  });
}
