import { Repeater } from '@graphql-yoga/subscription';
import type { Db } from '../db/client.ts';
import type { EventBus } from './bus.ts';
import { readEventLog } from './log.ts';
import type { MemoryEventRecord } from './types.ts';

export interface StreamOptions {
  /** Replay the log after this seq first; null = live only. */
  sinceSeq: number | null;
  /** Live events held for a subscriber that is not keeping up; past this, it catches up from the log. */
  bufferMax?: number;
  /** Page size when reading the log. */
  pageSize?: number;
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

  return new Repeater<MemoryEventRecord>(async (push, stop) => {
    let buffer: MemoryEventRecord[] = [];
    let overflowed = false;
    let stopped = false;
    let wake: (() => void) | null = null;
    const unsubscribe = bus.subscribe(workspace, (event) => {
      if (buffer.length >= bufferMax) overflowed = true;
      else buffer.push(event);
      wake?.();
    });
    void stop.then(() => {
      stopped = true;
      wake?.();
    });

    let last = opts.sinceSeq;
    // Emits the log after `last`, up to (not including) `until`.
    const replay = async (until: number | null) => {
      while (!stopped) {
        const page = await readEventLog(db, workspace, last ?? 0, pageSize);
        for (const event of page) {
          if (stopped || (until !== null && event.seq >= until)) return;
          last = event.seq;
          await push(event);
        }
        if (page.length < pageSize) return;
      }
    };

    try {
      if (last !== null) await replay(null);
      while (!stopped) {
        if (overflowed) {
          // Too far behind: drop what is held and read the rest from the log.
          overflowed = false;
          buffer = [];
          last ??= 0;
          await replay(null);
          continue;
        }
        const next = buffer.shift();
        if (!next) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = null;
          continue;
        }
        if (last !== null && next.seq <= last) continue;
        if (last !== null && next.seq > last + 1) await replay(next.seq);
        if (stopped) break;
        last = next.seq;
        await push(next);
      }
    } finally {
      unsubscribe();
    }
  });
}
