import { Repeater } from '@graphql-yoga/subscription';
import type { MemoryEventRecord } from '../contract/events.ts';
import type { Db } from '../db/client.ts';
import type { EventBus, StreamStats } from './bus.ts';
import { lastSeq, readEventLog } from './log.ts';

/** Events read from the log at a time while replaying. */
export const REPLAY_PAGE = 50;

/**
 * Replays of every stream take turns: one page per turn of the event loop, however many
 * streams replay at once, so the loop polls for I/O (other clients' requests) between
 * any two pages. A page's events are delivered within its turn when the consumer takes
 * them at once (a socket whose kernel buffer still has room); a consumer that stops
 * reading stops its stream, since `push` waits for it.
 */
class ReplayTurns {
  readonly #waiting: Array<() => void> = [];
  #scheduled = false;

  /** Resolves when it is this caller's turn to read and deliver a page. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // An immediate queued while immediates run waits for the next turn, after the I/O poll.
    setImmediate(() => {
      this.#scheduled = false;
      this.#waiting.shift()?.();
      if (this.#waiting.length > 0) this.#schedule();
    });
  }
}

const replayTurns = new ReplayTurns();

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
  /**
   * Waits for this stream's client to have a turn to replay the log (REPLAYS_PER_CLIENT);
   * resolves with its release. Without it, every replay runs at once.
   */
  replayTurn?: () => Promise<(() => void) | null>;
}

/**
 * Live events of one workspace as they arrive, held for a stream until it takes them: at
 * most `max`; past that it only remembers that it overflowed (the stream then reads the
 * log instead). Counted in the bus's stream stats.
 */
class LiveBuffer {
  #events: MemoryEventRecord[] = [];
  #overflowed = false;
  /** The seq of the first live event heard (held or not), or null before any. */
  firstSeq: number | null = null;
  #wake: (() => void) | null = null;
  readonly #stats: StreamStats;
  readonly #unsubscribe: () => void;

  constructor(bus: EventBus, workspace: string, max: number) {
    this.#stats = bus.streams;
    this.#unsubscribe = bus.subscribe(workspace, (event) => {
      this.firstSeq ??= event.seq;
      if (this.#events.length >= max) {
        if (!this.#overflowed) this.#stats.overflows++;
        this.#overflowed = true;
      } else {
        this.#events.push(event);
        this.#stats.buffered++;
      }
      this.#wake?.();
    });
  }

  take(): MemoryEventRecord | undefined {
    const next = this.#events.shift();
    if (next) this.#stats.buffered--;
    return next;
  }

  /** True once if it overflowed since the last call; what it held is dropped. */
  takeOverflow(): boolean {
    if (!this.#overflowed) return false;
    this.#overflowed = false;
    this.#stats.buffered -= this.#events.length;
    this.#events = [];
    return true;
  }

  /** Resolves on the next live event or `interrupt()` (false), or after `pollMs` (true; 0 = never). */
  async idle(pollMs: number): Promise<boolean> {
    const timedOut = await new Promise<boolean>((resolve) => {
      this.#wake = () => resolve(false);
      if (pollMs > 0) setTimeout(() => resolve(true), pollMs).unref();
    });
    this.#wake = null;
    return timedOut;
  }

  interrupt(): void {
    this.#wake?.();
  }

  close(): void {
    this.#unsubscribe();
    this.#stats.buffered -= this.#events.length;
    this.#events = [];
  }
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
  const pageSize = opts.pageSize ?? REPLAY_PAGE;
  const pollMs = opts.pollMs ?? 0;

  return new Repeater<MemoryEventRecord>(async (push, stop) => {
    const live = new LiveBuffer(bus, workspace, opts.bufferMax ?? 1_000);
    let stopped = false;
    bus.streams.open++;
    void stop.then(() => {
      stopped = true;
      live.interrupt();
    });

    // Live-only streams start after what is committed now, so a later gap can be recognised.
    // The stream listens before that read answers: an event heard meanwhile was committed
    // after it began listening, and is delivered whatever the read says.
    let last: number = opts.sinceSeq ?? (await lastSeq(db));
    if (opts.sinceSeq === null && live.firstSeq !== null) last = Math.min(last, live.firstSeq - 1);
    // Emits the log after `last`, up to (not including) `until`, a page per turn (see
    // ReplayTurns): a consumer that takes each event at once would otherwise replay the
    // whole log in one turn, holding the loop for every other client.
    const replay = async (until: number | null) => {
      const release = await opts.replayTurn?.();
      try {
        while (!stopped) {
          await replayTurns.next();
          if (stopped) return;
          const page = await readEventLog(db, workspace, last, pageSize);
          for (const event of page) {
            if (stopped || (until !== null && event.seq >= until)) return;
            last = event.seq;
            await push(event);
          }
          if (page.length < pageSize) return;
        }
      } finally {
        release?.();
      }
    };

    try {
      await replay(null);
      while (!stopped) {
        // Too far behind: what was held is dropped, and the rest comes from the log.
        if (live.takeOverflow()) {
          await replay(null);
          continue;
        }
        const next = live.take();
        if (!next) {
          const timedOut = await live.idle(pollMs);
          if (timedOut && !stopped && (await lastSeq(db)) > last) await replay(null);
          continue;
        }
        if (next.seq <= last) continue;
        if (next.seq > last + 1) await replay(next.seq);
        if (stopped) break;
        last = next.seq;
        await push(next);
      }
    } finally {
      live.close();
      bus.streams.open--;
    }
  });
}
