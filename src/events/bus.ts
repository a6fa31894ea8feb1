import type { MemoryEventRecord } from './types.ts';

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

/** Publishes committed events per workspace topic; nobody can listen across workspaces. */
export class EventBus {
  readonly #target: BusTarget;
  #published = 0;
  #listeners = 0;

  constructor(target: BusTarget = new EventTarget()) {
    this.#target = target;
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
