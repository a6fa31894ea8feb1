import type { ExecutionArgs } from 'graphql';
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { DomainError } from '../contract/errors.ts';
import { KeyedTurns } from '../events/keyed-turns.ts';
import type { Context } from '../graphql/context.ts';
import { toGraphQLError } from '../graphql/errors.ts';
import { clientOf } from '../graphql/guards.ts';
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

/** Turns for heavy reads, per client: at most `perClient` at once, `waiting` more queued. */
export class HeavyReads extends KeyedTurns {
  constructor(perClient: number = HEAVY_READS.perClient, waiting: number = HEAVY_READS.waiting) {
    super(perClient, waiting);
  }

  get perClient(): number {
    return this.perKey;
  }
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
      const release = await heavy.acquire(clientOf(args.contextValue as unknown as Context));
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
