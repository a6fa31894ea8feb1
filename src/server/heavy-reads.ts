import type { ExecutionArgs } from 'graphql';
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { DomainError } from '../contract/errors.ts';
import type { Context } from '../graphql/context.ts';
import { toGraphQLError } from '../graphql/errors.ts';
import type { Estimate } from '../graphql/limits.ts';

/**
 * Heavy reads: queries estimated (limits.ts) to return at least `bytes` of entry text, the
 * contents of 40 entries at their longest, or to resolve at least `cost` fields. Each
 * client (a token; in open mode, a workspace) runs at most `perClient` of them at once;
 * up to `waiting` more wait their turn, and beyond that they are refused RATE_LIMITED.
 * A tenant's burst of heavy reads then queues behind itself instead of filling the
 * readers every other tenant needs.
 */
export const HEAVY_READS = {
  bytes: 4_000_000,
  cost: 100_000,
  perClient: 2,
  waiting: 8,
} as const;

export function isHeavy(estimate: Estimate): boolean {
  return estimate.bytes >= HEAVY_READS.bytes || estimate.cost >= HEAVY_READS.cost;
}

/** Turns for heavy reads, per client: a counting semaphore with a bounded queue for each key. */
export class HeavyReads {
  readonly #running = new Map<string, number>();
  readonly #queues = new Map<string, (() => void)[]>();
  readonly perClient: number;
  readonly waiting: number;

  constructor(perClient: number = HEAVY_READS.perClient, waiting: number = HEAVY_READS.waiting) {
    this.perClient = perClient;
    this.waiting = waiting;
  }

  /** Resolves with the release of a turn once `key` has one, or null when its queue is full. */
  async acquire(key: string): Promise<(() => void) | null> {
    const running = this.#running.get(key) ?? 0;
    if (running >= this.perClient) {
      const queue = this.#queues.get(key) ?? [];
      if (queue.length >= this.waiting) return null;
      this.#queues.set(key, queue);
      // The turn is handed over by the release, running count and all.
      await new Promise<void>((resolve) => queue.push(resolve));
    } else {
      this.#running.set(key, running + 1);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#release(key);
    };
  }

  /** Heavy reads of `key` running now. */
  running(key: string): number {
    return this.#running.get(key) ?? 0;
  }

  #release(key: string): void {
    const queue = this.#queues.get(key);
    const next = queue?.shift();
    if (queue?.length === 0) this.#queues.delete(key);
    if (next) {
      next();
      return;
    }
    const left = (this.#running.get(key) ?? 1) - 1;
    if (left > 0) this.#running.set(key, left);
    else this.#running.delete(key);
  }
}

function clientKey(ctx: Context): string {
  return ctx.access.tokenId ? `token:${ctx.access.tokenId}` : `open:${ctx.access.workspaceId}`;
}

/**
 * Runs each heavy query in its client's turn (see HEAVY_READS). `estimateOf` gives the
 * estimate the cost limit made of the operation, which runs before this plugin.
 */
export function useHeavyReadLimit(
  heavy: HeavyReads,
  estimateOf: (contextValue: unknown) => Estimate | undefined,
): Plugin {
  return {
    async onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const estimate = estimateOf(args.contextValue);
      if (!estimate || !isHeavy(estimate)) return;
      if (getOperationAST(args.document, args.operationName)?.operation !== 'query') return;
      const release = await heavy.acquire(clientKey(args.contextValue as unknown as Context));
      if (!release) {
        const refusal = new DomainError(
          'RATE_LIMITED',
          `at most ${heavy.perClient} heavy reads per client run at once and ${heavy.waiting} wait; ` +
            'retry once one has finished, or ask for fewer items or less content',
        );
        setResultAndStopExecution({ errors: [toGraphQLError(refusal)] });
        return;
      }
      setExecuteFn(async (a: ExecutionArgs) => {
        try {
          return await executeFn(a);
        } finally {
          release();
        }
      });
    },
  };
}
