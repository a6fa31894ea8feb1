import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { budget } from './budget.ts';

export interface Received<T> {
  items: T[];
  errors: unknown[];
  completed: boolean;
  /** Resolves once `predicate(items)` holds, or rejects after `timeoutMs` (stretched by TEST_TIME_SCALE). */
  until(predicate: (items: T[]) => boolean, timeoutMs?: number): Promise<T[]>;
  dispose(): void;
}

export function wsClient(url: string, connectionParams: Record<string, unknown> = {}): Client {
  return createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: true,
  });
}

/** Subscribes and collects every `data` payload (picked by `pick`) as it arrives. */
export function collect<T = Record<string, any>>(
  client: Client,
  query: string,
  variables: Record<string, unknown> = {},
  pick: (data: Record<string, any>) => T = (d) => Object.values(d)[0] as T,
): Received<T> {
  const items: T[] = [];
  const errors: unknown[] = [];
  const state = { completed: false };
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of waiters) w();
  };
  const dispose = client.subscribe<Record<string, any>>(
    { query, variables },
    {
      next: (value) => {
        if (value.errors) errors.push(...value.errors);
        if (value.data) items.push(pick(value.data));
        notify();
      },
      error: (error) => {
        errors.push(error);
        notify();
      },
      complete: () => {
        state.completed = true;
        notify();
      },
    },
  );
  return {
    items,
    errors,
    get completed() {
      return state.completed;
    },
    until(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (predicate(items)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(items);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out with ${items.length} items; errors: ${JSON.stringify(errors)}`));
        }, budget(timeoutMs));
        waiters.add(check);
        check();
      });
    },
    dispose,
  };
}

/** Resolves once the subscription is registered server-side (the server acknowledges by sending nothing, so wait a tick). */
export const settle = (ms = 150) => new Promise((r) => setTimeout(r, ms));
