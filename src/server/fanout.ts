import { Counter, Histogram, type Registry } from 'prom-client';

/** Subscribers of one workspace handed an event per turn of the event loop, before the next workspace's turn. */
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
      help: 'Subscription results fanned out to the WebSocket subscribers sharing them, by workspace.',
      labelNames: ['workspace'],
      registers: [reg],
    }),
    deliveries: new Counter({
      name: 'sphere_fanout_deliveries_total',
      help: 'Subscription results handed to a subscriber, by workspace.',
      labelNames: ['workspace'],
      registers: [reg],
    }),
    delay: new Histogram({
      name: 'sphere_fanout_delay_seconds',
      help: 'Time from a result being ready to its last subscriber having it, by workspace.',
      labelNames: ['workspace'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [reg],
    }),
  };
}

interface Job {
  give: Array<() => void>;
  next: number;
  at: number;
  done: () => void;
}

/**
 * Hands subscription results to their subscribers fairly across workspaces. Each workspace
 * may hand out DELIVERIES_PER_SLICE results-to-subscribers per turn of the event loop: a
 * result within what is left of that budget goes out at once; the rest waits in the
 * workspace's queue, and each turn every waiting workspace hands out one slice, then the
 * loop polls for I/O. A workspace whose 150 subscribers are flooded with writes thus costs
 * the others at most one slice per turn: a quiet workspace's event waits for one slice of
 * the flood, not for the flood. What a delivery triggers (the subscriber's send) runs
 * within its slice's turn.
 */
export class FairFanout {
  /** Workspaces with work waiting, in turn order (a Map iterates in insertion order). */
  readonly #queues = new Map<string, Job[]>();
  /** Deliveries each workspace made since the last turn began. */
  readonly #spent = new Map<string, number>();
  readonly #metrics: FanoutMetrics | null;
  #scheduled = false;

  constructor(metrics: FanoutMetrics | null = null) {
    this.#metrics = metrics;
  }

  /** Runs each of `give` (one per subscriber) in fair slices; resolves once all have run. */
  deliver(workspace: string, give: Array<() => void>): Promise<void> {
    this.#metrics?.events.inc({ workspace });
    if (give.length === 0) return Promise.resolve();
    const spent = this.#spent.get(workspace) ?? 0;
    if (!this.#queues.has(workspace) && spent + give.length <= DELIVERIES_PER_SLICE) {
      this.#spent.set(workspace, spent + give.length);
      run(give, 0, give.length);
      this.#metrics?.deliveries.inc({ workspace }, give.length);
      this.#metrics?.delay.observe({ workspace }, 0);
      // The next turn gives every workspace its budget back.
      this.#schedule();
      return Promise.resolve();
    }
    return new Promise((done) => {
      const job: Job = { give, next: 0, at: performance.now(), done };
      const queue = this.#queues.get(workspace);
      if (queue) queue.push(job);
      else this.#queues.set(workspace, [job]);
      this.#schedule();
    });
  }

  /** Results waiting to be handed out, over every workspace. */
  get waiting(): number {
    let n = 0;
    for (const queue of this.#queues.values()) n += queue.length;
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
    for (const [workspace, queue] of [...this.#queues]) {
      let budget = DELIVERIES_PER_SLICE;
      while (budget > 0 && queue.length > 0) {
        const job = queue[0] as Job;
        const start = job.next;
        const end = Math.min(job.give.length, start + budget);
        run(job.give, start, end);
        job.next = end;
        budget -= end - start;
        this.#metrics?.deliveries.inc({ workspace }, end - start);
        if (job.next < job.give.length) break;
        queue.shift();
        this.#metrics?.delay.observe({ workspace }, (performance.now() - job.at) / 1000);
        job.done();
      }
      this.#spent.set(workspace, DELIVERIES_PER_SLICE - budget);
      // To the back of the line: the next turn starts with the workspace that waited longest.
      this.#queues.delete(workspace);
      if (queue.length > 0) this.#queues.set(workspace, queue);
    }
    if (this.#queues.size > 0 || this.#spent.size > 0) this.#schedule();
  }
}

function run(give: Array<() => void>, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    try {
      give[i]?.();
    } catch {
      // One subscriber's failure is its own; the others still get the result.
    }
  }
}
