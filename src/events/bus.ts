import { setMaxListeners } from 'node:events';
import type { MemoryEventRecord } from '../contract/events.ts';

/**
 * The minimal event-target surface the bus needs. Node's EventTarget fits (in-process);
 * so does `@graphql-yoga/redis-event-target`, which fans events out across instances.
 */
export interface BusTarget {
  addEventListener(type: string, listener: (event: Event) => void): void;
  removeEventListener(type: string, listener: (event: Event) => void): void;
  dispatchEvent(event: Event): boolean;
}

export type EventListener = (event: MemoryEventRecord) => void;

const topic = (workspace: string) => `sphere-events:${workspace}`;

/** Counters over every subscriber stream, for /metrics and for tests of the memory bound. */
export interface StreamStats {
  /** Streams open now. */
  open: number;
  /** Live events held in stream buffers now, over all streams. */
  buffered: number;
  /** Times a stream's buffer filled and it fell back to reading the log. */
  overflows: number;
}

/** Publishes committed events per workspace topic; nobody can listen across workspaces. */
export class EventBus {
  readonly #target: BusTarget;
  readonly streams: StreamStats = { open: 0, buffered: 0, overflows: 0 };
  #published = 0;
  #listeners = 0;

  constructor(target?: BusTarget) {
    if (target) {
      this.#target = target;
    } else {
      const local = new EventTarget();
      // Every subscriber of a workspace listens on its topic; hundreds are normal.
      setMaxListeners(0, local);
      this.#target = local;
    }
  }

  get published(): number {
    return this.#published;
  }

  get listeners(): number {
    return this.#listeners;
  }

  /** Called by the writer after commit, with events in seq order. */
  publish(events: readonly MemoryEventRecord[]): void {
    for (const event of events) {
      this.#published++;
      this.#target.dispatchEvent(new CustomEvent(topic(event.workspace), { detail: event }));
    }
  }

  /** Listens to one workspace; returns the function that stops listening. */
  subscribe(workspace: string, listener: EventListener): () => void {
    const handler = (e: Event) => listener((e as CustomEvent<MemoryEventRecord>).detail);
    this.#target.addEventListener(topic(workspace), handler);
    this.#listeners++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#listeners--;
      this.#target.removeEventListener(topic(workspace), handler);
    };
  }
}
