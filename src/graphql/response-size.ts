import { type ExecutionResult, GraphQLError, getOperationAST } from 'graphql';
import { handleStreamOrSingleExecutionResult, isAsyncIterable, type Plugin } from 'graphql-yoga';
import { DomainError } from '../contract/errors.ts';
import { toGraphQLError } from './errors.ts';
import type { ReadBudget } from './read-budget.ts';

/**
 * The size of `value` as JSON, in UTF-8 bytes (escapes aside), or `Infinity` as soon as it
 * passes `limit`: the walk never goes further than the limit, however large the value.
 */
export function jsonSize(value: unknown, limit: number): number {
  let total = 0;
  const walk = (v: unknown): void => {
    if (total > limit) return;
    if (typeof v === 'string') {
      // Long strings are measured exactly; short ones by length, which is close enough.
      total += (v.length > 64 ? Buffer.byteLength(v) : v.length) + 2;
    } else if (v === null || typeof v !== 'object') {
      total += 8;
    } else if (Array.isArray(v)) {
      total += 2;
      for (const item of v) {
        total += 1;
        walk(item);
        if (total > limit) return;
      }
    } else if (v instanceof GraphQLError) {
      total += 128 + v.message.length + (v.path?.length ?? 0) * 16;
    } else {
      total += 2;
      for (const key in v) {
        total += key.length + 4;
        walk((v as Record<string, unknown>)[key]);
        if (total > limit) return;
      }
    }
  };
  walk(value);
  return total > limit ? Number.POSITIVE_INFINITY : total;
}

function tooLarge(maxBytes: number, mutation: boolean): ExecutionResult {
  // The writes of a mutation are made by the time its answer is measured; say so, since
  // the client cannot otherwise tell.
  const writes = mutation ? '; the mutation’s writes were made, read them back with a smaller selection' : '';
  return {
    data: null,
    errors: [
      toGraphQLError(
        new DomainError(
          'RESPONSE_TOO_LARGE',
          `the answer would be larger than ${maxBytes} bytes; ask for fewer items (n, first, topK, limit) ` +
            `or leave out large fields such as content${writes}`,
        ),
      ),
    ],
  };
}

/**
 * Refuses any result, query, mutation or subscription event, whose JSON would pass
 * `maxBytes`, with one RESPONSE_TOO_LARGE error in its place. It runs before the result is
 * serialized, so an oversized answer never becomes a string: the one that would be built
 * otherwise can pass what V8 can hold and end as an internal error after seconds of work.
 * It is an envelop plugin, so Yoga's HTTP handling, plain JSON POSTs and graphql-ws (which
 * run through `yoga.getEnveloped()`) are all held to it.
 */
export function useResponseCap(maxBytes: number): Plugin {
  type Payload = { result: unknown; setResult: (r: ExecutionResult) => void };
  const check =
    (mutation: boolean) =>
    ({ result, setResult }: Payload) => {
      if (jsonSize(result, maxBytes) === Number.POSITIVE_INFINITY) setResult(tooLarge(maxBytes, mutation));
    };
  return {
    onExecute: ({ args }) => {
      const mutation = getOperationAST(args.document, args.operationName)?.operation === 'mutation';
      const budget = (args.contextValue as { readBudget?: ReadBudget } | undefined)?.readBudget;
      return {
        onExecuteDone: (payload) =>
          handleStreamOrSingleExecutionResult(payload, (done) => {
            // Reads stopped at the cap: the fields they left null are no answer.
            if (budget?.spent) done.setResult(tooLarge(maxBytes, mutation));
            else check(mutation)(done);
          }),
      };
    },
    onSubscribe: () => ({
      onSubscribeResult: ({ result, setResult }) => {
        if (!isAsyncIterable(result)) {
          check(false)({ result, setResult });
          return;
        }
        return { onNext: check(false) };
      },
    }),
  };
}
