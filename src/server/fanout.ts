import { Counter, Histogram, type Registry } from 'prom-client';

/** Results one workspace's subscribers may send per turn of the event loop, before the next workspace's turn. */
export const DELIVERIES_PER_SLICE = 32;

/** Per-workspace fan-out counters on /metrics. */
export interface FanoutMetrics {
  events: Counter<'workspace'>;
  deliveries: Counter<'workspace'>;
  delay: Histogram<'workspace'>;
}

export function fanoutMetrics(reg: Registry): FanoutMetrics {
  return {
    events: new Counter({
      name: 'sphere_fanout_events_total',
      help: 'Results of shared live subscriptions (one execution and serialization each), by workspace.',
      labelNames: ['workspace'],
      registers: [reg],
    }),
    deliveries: new Counter({
      name: 'sphere_fanout_deliveries_total',
      help: 'Shared subscription results sent to a subscriber, by workspace.',
      labelNames: ['workspace'],
      registers: [reg],
    }),
    delay: new Histogram({
      name: 'sphere_fanout_delay_seconds',
      help: "How long a subscriber waited for its workspace's turn to send a result (waits only), by workspace.",
      labelNames: ['workspace'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [reg],
    }),
  };
}

/**
 * Hands shared subscription results to subscribers fairly across workspaces. A subscriber
 * takes each result it sends through `take`: each workspace may take
 * DELIVERIES_PER_SLICE results per turn of the event loop, and past that its takers wait,
 * in line, for the next turns, when every waiting workspace gets another slice before the
 * loop polls for I/O again. A workspace whose 150 subscribers are flooded with writes (and
 * whose sockets, once drained, would send everything they hold at once) thus costs the
 * others at most one slice per turn: a quiet workspace's event waits for one slice of the
 * flood, not for the flood. A take that waited runs its send within its slice's turn.
 */
export class FairFanout {
  /** Takers waiting for a slice, by workspace, in turn order (a Map iterates in insertion order). */
  readonly #waiting = new Map<string, Array<() => void>>();
  /** Results each workspace's subscribers took since the last turn began. */
  readonly #spent = new Map<string, number>();
  readonly #metrics: FanoutMetrics | null;
  #scheduled = false;

  constructor(metrics: FanoutMetrics | null = null) {
    this.#metrics = metrics;
  }

  /** Counts a result a shared subscription of `workspace` produced. */
  produced(workspace: string): void {
    this.#metrics?.events.inc({ workspace });
  }

  /**
   * Null when a subscriber of `workspace` may send one more result now; otherwise a promise
   * that resolves on its turn.
   */
  take(workspace: string): Promise<void> | null {
    this.#metrics?.deliveries.inc({ workspace });
    const spent = this.#spent.get(workspace) ?? 0;
    if (spent < DELIVERIES_PER_SLICE && !this.#waiting.has(workspace)) {
      this.#spent.set(workspace, spent + 1);
      // The next turn gives every workspace its budget back.
      this.#schedule();
      return null;
    }
    const at = performance.now();
    return new Promise((resolve) => {
      const taker = () => {
        this.#metrics?.delay.observe({ workspace }, (performance.now() - at) / 1000);
        resolve();
      };
      const line = this.#waiting.get(workspace);
      if (line) line.push(taker);
      else this.#waiting.set(workspace, [taker]);
      this.#schedule();
    });
  }

  /** Takers waiting for their turn, over every workspace. */
  get waiting(): number {
    let n = 0;
    for (const line of this.#waiting.values()) n += line.length;
    return n;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Queued while immediates run, it waits for the next turn, after the I/O poll.
    setImmediate(() => this.#turn());
  }

  #turn(): void {
    this.#scheduled = false;
    this.#spent.clear();
    for (const [workspace, line] of [...this.#waiting]) {
      const slice = line.splice(0, DELIVERIES_PER_SLICE);
      for (const taker of slice) taker();
      this.#spent.set(workspace, slice.length);
      // To the back of the line: the next turn starts with the workspace that waited longest.
      this.#waiting.delete(workspace);
      if (line.length > 0) this.#waiting.set(workspace, line);
    }
    if (this.#waiting.size > 0 || this.#spent.size > 0) this.#schedule();
  }
}
