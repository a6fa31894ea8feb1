import { DomainError } from '../contract/errors.ts';
import type { StreamStats } from '../events/bus.ts';
import { toGraphQLError } from '../graphql/errors.ts';
import { FairFanout } from './fanout.ts';

/** What a subscription yields, as graphql-ws consumes it. */
type Result = unknown;
type Source = AsyncIterable<Result> | Result;

interface Subscriber {
  queue: Result[];
  wake: (() => void) | null;
  error: unknown;
  done: boolean;
}

interface Hub {
  workspace: string;
  subscribers: Set<Subscriber>;
  upstream: AsyncIterator<Result> | null;
  stopped: boolean;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Result> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/**
 * Runs each distinct live subscription once and hands every result to all of its
 * subscribers: a thousand dashboards watching `events { … }` in one workspace cost one
 * GraphQL execution per event, not a thousand (and one serialization: see ws.ts).
 * Results reach subscribers through a FairFanout, a slice per workspace per turn, so one
 * workspace's crowd of subscribers never holds up another's events. A subscriber that falls `bufferMax`
 * results behind is ended with an error (it resumes with `sinceSeq`), so a stalled
 * client never holds the others back or grows memory.
 */
export class Multicast {
  readonly #hubs = new Map<string, Promise<Hub | Source>>();
  readonly #bufferMax: number;
  readonly #stats: StreamStats;
  readonly #fanout: FairFanout;

  constructor(stats: StreamStats, bufferMax = 1_000, fanout = new FairFanout()) {
    this.#stats = stats;
    this.#bufferMax = bufferMax;
    this.#fanout = fanout;
  }

  /** Joins the subscription `key` of `workspace`, starting it with `start` if nobody runs it yet. */
  async subscribe(
    key: string,
    workspace: string,
    start: () => Promise<Source> | Source,
    retried = false,
  ): Promise<Source> {
    let pending = this.#hubs.get(key);
    if (!pending) {
      pending = this.#open(key, workspace, start);
      this.#hubs.set(key, pending);
      pending.catch(() => this.#hubs.delete(key));
    }
    const hub = await pending;
    if (!isHub(hub)) {
      // An error result (validation, auth): not shared, not kept.
      if (this.#hubs.get(key) === pending) this.#hubs.delete(key);
      return hub;
    }
    if (hub.stopped && !retried) {
      // Its last subscriber left between it being found and joined: start a fresh one, once
      // (an upstream that ends by itself at once simply completes for its subscriber).
      if (this.#hubs.get(key) === pending) this.#hubs.delete(key);
      return this.subscribe(key, workspace, start, true);
    }
    return this.#join(key, hub);
  }

  async #open(key: string, workspace: string, start: () => Promise<Source> | Source): Promise<Hub | Source> {
    const source = await start();
    if (!isAsyncIterable(source)) return source;
    const hub: Hub = { workspace, subscribers: new Set(), upstream: source[Symbol.asyncIterator](), stopped: false };
    void this.#pump(key, hub);
    return hub;
  }

  async #pump(key: string, hub: Hub): Promise<void> {
    try {
      while (!hub.stopped && hub.upstream) {
        const next = await hub.upstream.next();
        if (next.done) break;
        // The next result is pulled once every subscriber has this one: a hub whose
        // deliveries wait their turn leaves its events in the stream's bounded buffer (and
        // then in the log), not in memory here.
        const give = [...hub.subscribers].map((sub) => () => this.#give(key, hub, sub, next.value));
        await this.#fanout.deliver(hub.workspace, give);
      }
    } catch (error) {
      for (const sub of hub.subscribers) {
        sub.error = error;
        sub.wake?.();
      }
    } finally {
      await this.#stop(key, hub);
      for (const sub of hub.subscribers) {
        sub.done = true;
        sub.wake?.();
      }
    }
  }

  /** Queues a result for one subscriber, or ends a subscriber that fell `bufferMax` behind. */
  #give(key: string, hub: Hub, sub: Subscriber, value: Result): void {
    if (!hub.subscribers.has(sub)) return;
    if (sub.queue.length >= this.#bufferMax) {
      this.#stats.overflows++;
      sub.error = toGraphQLError(
        new DomainError('RATE_LIMITED', 'subscriber too slow: resubscribe with events(sinceSeq: <last seq seen>)'),
      );
      sub.queue = [];
      hub.subscribers.delete(sub);
      if (hub.subscribers.size === 0) void this.#stop(key, hub);
    } else {
      sub.queue.push(value);
    }
    sub.wake?.();
  }

  /** Ends a hub nobody listens to: its upstream stops (and unsubscribes) at once. */
  async #stop(key: string, hub: Hub): Promise<void> {
    if (hub.stopped) return;
    hub.stopped = true;
    const current = this.#hubs.get(key);
    if (current && (await current) === hub) this.#hubs.delete(key);
    await hub.upstream?.return?.();
  }

  #join(key: string, hub: Hub): AsyncIterableIterator<Result> {
    const sub: Subscriber = { queue: [], wake: null, error: null, done: false };
    hub.subscribers.add(sub);
    const leave = async () => {
      hub.subscribers.delete(sub);
      sub.done = true;
      sub.wake?.();
      if (hub.subscribers.size === 0) await this.#stop(key, hub);
    };
    const iterator: AsyncIterableIterator<Result> = {
      next: async () => {
        while (true) {
          if (sub.queue.length > 0) return { done: false, value: sub.queue.shift() };
          if (sub.error) {
            const error = sub.error;
            sub.error = null;
            await leave();
            throw error;
          }
          if (sub.done || hub.stopped) return { done: true, value: undefined };
          await new Promise<void>((resolve) => {
            sub.wake = resolve;
          });
          sub.wake = null;
        }
      },
      return: async () => {
        await leave();
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }
}

function isHub(value: Hub | Source): value is Hub {
  return typeof value === 'object' && value !== null && 'subscribers' in value && 'upstream' in value;
}
