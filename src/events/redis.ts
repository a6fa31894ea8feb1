import { setMaxListeners } from 'node:events';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis } from 'ioredis';
import type { MemoryEventRecord } from '../contract/events.ts';
import type { BusTarget } from './bus.ts';

/** Whether Redis carries events between instances right now. */
export interface RedisStatus {
  /** `connecting` until the first connection succeeds or fails. */
  state: 'connecting' | 'up' | 'down';
  /** Why it is down (an error code such as ECONNREFUSED, never an address); null while not down. */
  reason: string | null;
  /** Reconnection attempts since it was last up. */
  attempts: number;
}

/** How the target reports what happens to its connection; the caller decides where it goes (the log). */
export interface RedisReporter {
  /** Redis is down; called when that is first seen, then at most once per `reportEveryMs` while it lasts. */
  down(status: RedisStatus): void;
  /** Redis is back after being down. */
  up(status: RedisStatus): void;
}

export interface RedisTarget {
  target: BusTarget;
  status(): RedisStatus;
  /** Resolves once the first connection succeeded or failed, or after `ms`, whichever is first. */
  settled(ms: number): Promise<RedisStatus>;
  close(): Promise<void>;
}

export interface RedisTargetOptions {
  report?: RedisReporter;
  /** Least time between two `down` reports while Redis stays down. */
  reportEveryMs?: number;
}

/** Events this instance published and dispatched itself, kept until Redis echoes them back. */
const ECHOES_MAX = 10_000;

/**
 * The connection state of both Redis clients, as one status: up only when both are ready.
 * Reports the first failure at once and further attempts at most once per interval, so a
 * Redis that stays away for an hour costs a few log lines, not thousands.
 */
class RedisHealth {
  readonly #ready = new Map<Redis, boolean>();
  /** Reconnection attempts of each client since it was last up; both retry on the same schedule. */
  readonly #retries = new Map<Redis, number>();
  #state: RedisStatus['state'] = 'connecting';
  #reason: string | null = null;
  #reportedAt = Number.NEGATIVE_INFINITY;
  #settle: Array<() => void> = [];
  #closing = false;
  readonly #opts: RedisTargetOptions;

  constructor(clients: Redis[], opts: RedisTargetOptions) {
    this.#opts = opts;
    for (const client of clients) {
      this.#ready.set(client, false);
      client.on('ready', () => this.#onReady(client));
      client.on('error', (error: Error & { code?: string }) => this.#onFailure(client, error.code ?? error.name));
      client.on('close', () => this.#onFailure(client, this.#reason ?? 'connection closed'));
      client.on('reconnecting', () => this.#retries.set(client, (this.#retries.get(client) ?? 0) + 1));
    }
  }

  status(): RedisStatus {
    const attempts = Math.max(0, ...this.#retries.values());
    return { state: this.#state, reason: this.#state === 'down' ? this.#reason : null, attempts };
  }

  settled(ms: number): Promise<RedisStatus> {
    if (this.#state !== 'connecting') return Promise.resolve(this.status());
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve(this.status());
      };
      const timer = setTimeout(done, ms);
      this.#settle.push(done);
    });
  }

  #onReady(client: Redis): void {
    this.#ready.set(client, true);
    if (![...this.#ready.values()].every(Boolean)) return;
    const wasDown = this.#state === 'down';
    this.#state = 'up';
    this.#reason = null;
    if (wasDown) this.#opts.report?.up(this.status());
    this.#retries.clear();
    this.#reportedAt = Number.NEGATIVE_INFINITY;
    this.#wake();
  }

  /** From now on, connections closing is the plan, not a failure. */
  closing(): void {
    this.#closing = true;
  }

  #onFailure(client: Redis, reason: string): void {
    this.#ready.set(client, false);
    if (this.#closing) return;
    this.#state = 'down';
    this.#reason = reason;
    this.#wake();
    const now = Date.now();
    if (now - this.#reportedAt >= (this.#opts.reportEveryMs ?? 30_000)) {
      this.#reportedAt = now;
      this.#opts.report?.down(this.status());
    }
  }

  #wake(): void {
    for (const done of this.#settle.splice(0)) done();
  }
}

/**
 * An event target that fans events out through Redis pub/sub, so a write committed on
 * one instance reaches subscribers on every instance. Subscribers on this instance get its
 * events straight away, never through Redis: a Redis that is down or slow delays only
 * other instances, and those recover what Redis dropped from the workspace's event log.
 */
export function createRedisTarget(url: string, opts: RedisTargetOptions = {}): RedisTarget {
  const options = { lazyConnect: false, maxRetriesPerRequest: 2, enableAutoPipelining: true } as const;
  const publisher = new Redis(url, options);
  const subscriber = new Redis(url, { ...options, maxRetriesPerRequest: null });
  const health = new RedisHealth([publisher, subscriber], opts);
  // A publish that fails while Redis is away must not become an unhandled rejection:
  // the event is committed, delivered here, and read from the log by other instances.
  const guardedPublisher = new Proxy(publisher, {
    get(target, prop, receiver) {
      if (prop === 'publish') {
        return (channel: string, message: string) => target.publish(channel, message).catch(() => 0);
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  const remote = createRedisEventTarget<CustomEvent>({ publishClient: guardedPublisher, subscribeClient: subscriber });
  return {
    target: new LocalFirstTarget(remote as unknown as BusTarget),
    status: () => health.status(),
    settled: (ms) => health.settled(ms),
    close: async () => {
      health.closing();
      await Promise.allSettled([publisher.quit(), subscriber.quit()]);
      publisher.disconnect();
      subscriber.disconnect();
    },
  };
}

const echoKey = (event: Event) => {
  const detail = (event as CustomEvent<MemoryEventRecord | null>).detail;
  return detail ? `${detail.workspace}:${detail.seq}` : '';
};

/**
 * Dispatches every event to this instance's listeners at once and publishes it to Redis
 * for the others; what Redis brings back of our own events is dropped (a seq is unique
 * in its workspace), and what other instances published is dispatched here.
 */
class LocalFirstTarget implements BusTarget {
  readonly #local = new EventTarget();
  readonly #remote: BusTarget;
  /** Listeners per topic: Redis is subscribed to a topic while it has any. */
  readonly #topics = new Map<string, number>();
  readonly #echoes = new Set<string>();
  readonly #relay = (event: Event) => {
    const key = echoKey(event);
    if (this.#echoes.delete(key)) return;
    this.#local.dispatchEvent(new CustomEvent(event.type, { detail: (event as CustomEvent).detail }));
  };

  constructor(remote: BusTarget) {
    this.#remote = remote;
    // Every subscriber of a workspace listens on its topic; hundreds are normal.
    setMaxListeners(0, this.#local);
  }

  addEventListener(type: string, listener: (event: Event) => void): void {
    this.#local.addEventListener(type, listener);
    const n = this.#topics.get(type) ?? 0;
    this.#topics.set(type, n + 1);
    if (n === 0) this.#remote.addEventListener(type, this.#relay);
  }

  removeEventListener(type: string, listener: (event: Event) => void): void {
    this.#local.removeEventListener(type, listener);
    const n = this.#topics.get(type) ?? 0;
    if (n <= 1) {
      this.#topics.delete(type);
      if (n === 1) this.#remote.removeEventListener(type, this.#relay);
    } else {
      this.#topics.set(type, n - 1);
    }
  }

  dispatchEvent(event: Event): boolean {
    const key = echoKey(event);
    // Only a topic someone here listens to can echo back; Redis down means no echo at all, so the set is bounded.
    if (key && this.#topics.has(event.type)) {
      this.#echoes.add(key);
      if (this.#echoes.size > ECHOES_MAX) this.#echoes.delete(this.#echoes.values().next().value as string);
    }
    this.#local.dispatchEvent(new CustomEvent(event.type, { detail: (event as CustomEvent).detail }));
    this.#remote.dispatchEvent(event);
    return true;
  }
}
