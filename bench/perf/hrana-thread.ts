/**
 * The Hrana test service on a thread of its own, for benchmarks: a hosted database runs on
 * other machines, so its answers must not wait behind the load generator's own work, as they
 * would sharing its event loop (16 clients' responses parsed and their next requests built
 * in one burst delayed the service's timers by several milliseconds per round trip).
 */
import { Worker } from 'node:worker_threads';
import type { HranaServerOptions, RoundTrip } from '../../test/helpers/hrana-server.ts';

/** What the thread (hrana-thread-main.mjs) is asked: its answer comes back with the same id. */
type Op = 'latency' | 'reset' | 'roundTrips' | 'log' | 'stop';
interface Call {
  id: number;
  op: Op;
  arg?: unknown;
}

/** The service's handle in the benchmark's thread: the same measurements, asked by message. */
export class HranaThread {
  readonly #worker: Worker;
  readonly #origin: string;
  readonly #waiting = new Map<number, (value: unknown) => void>();
  #ids = 0;

  private constructor(worker: Worker, origin: string) {
    this.#worker = worker;
    this.#origin = origin;
    worker.on('message', ({ id, value }: { id: number; value: unknown }) => {
      this.#waiting.get(id)?.(value);
      this.#waiting.delete(id);
    });
  }

  static async start(opts: HranaServerOptions): Promise<HranaThread> {
    const worker = new Worker(new URL('./hrana-thread-main.mjs', import.meta.url), { workerData: opts });
    const origin = await new Promise<string>((resolve, reject) => {
      worker.once('message', (m: { origin: string }) => resolve(m.origin));
      worker.once('error', reject);
    });
    return new HranaThread(worker, origin);
  }

  get urlTemplate(): string {
    return `${this.#origin}/{workspace}/`;
  }

  url(name: string): string {
    return `${this.#origin}/${name}/`;
  }

  setLatency(ms: number): Promise<void> {
    return this.#call('latency', ms) as Promise<void>;
  }

  resetCounts(): Promise<void> {
    return this.#call('reset') as Promise<void>;
  }

  roundTrips(name: string): Promise<number> {
    return this.#call('roundTrips', name) as Promise<number>;
  }

  /** The requests served since the last reset, timed on this thread's clock. */
  async log(): Promise<RoundTrip[]> {
    const shift = (t: number) => t - performance.timeOrigin;
    const log = (await this.#call('log')) as RoundTrip[];
    return log.map((r) => ({ ...r, at: shift(r.at), answeredAt: r.answeredAt && shift(r.answeredAt) }));
  }

  async stop(): Promise<void> {
    await this.#call('stop');
    await this.#worker.terminate();
  }

  #call(op: Op, arg?: unknown): Promise<unknown> {
    const id = ++this.#ids;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.#worker.postMessage({ id, op, arg } satisfies Call);
    });
  }
}
