import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { DomainError } from '../contract/errors.ts';
import type { Context } from '../graphql/context.ts';
import { toGraphQLError } from '../graphql/errors.ts';
import { type Cap, onIteratorEnd } from './caps.ts';

/** A subscription's answer once it is refused or ended: one result carrying the error. */
export const rateLimitedSubscription = (cap: Cap) =>
  toGraphQLError(
    new DomainError('RATE_LIMITED', `this workspace already has ${cap.max} live subscriptions; close some and retry`),
  );

/** Why a stream's access ended: its token was revoked, or the server left open mode. */
export const TOKEN_REVOKED = 'the bearer token was revoked';
export const TOKENS_NOW_REQUIRED = 'the server now requires a bearer token: a token was created';
const accessEnded = (message: string) => toGraphQLError(new DomainError('UNAUTHENTICATED', message));

type Result = ExecutionResult;

/**
 * Ends a stream with an UNAUTHENTICATED result once `stillValid` says no, checked every
 * `everyMs`: a server-sent-events stream has no socket to close, so the stream itself ends.
 */
export function endWhenRevoked(
  source: AsyncIterableIterator<Result>,
  stillValid: () => Promise<boolean>,
  everyMs: number,
  message = TOKEN_REVOKED,
): AsyncIterableIterator<Result> {
  let ended = false;
  let reportRevoked: (() => void) | null = null;
  const revocation = new Promise<'revoked'>((resolve) => {
    reportRevoked = () => resolve('revoked');
  });
  const timer = setInterval(() => {
    stillValid().then(
      (valid) => {
        if (!valid) reportRevoked?.();
      },
      () => {},
    );
  }, everyMs);
  timer.unref();
  void revocation.then(() => clearInterval(timer));
  const finish = async () => {
    ended = true;
    clearInterval(timer);
    await source.return?.();
  };
  const iterator: AsyncIterableIterator<Result> = {
    async next() {
      if (ended) return { done: true, value: undefined };
      const next = await Promise.race([source.next(), revocation]);
      if (next === 'revoked') {
        await finish();
        return { done: false, value: { errors: [accessEnded(message)] } };
      }
      if (next.done) await finish();
      return next;
    },
    async return() {
      await finish();
      return { done: true, value: undefined };
    },
    async throw(error?: unknown) {
      await finish();
      throw error;
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Result> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/**
 * Subscriptions over HTTP (server-sent events): each counts against its workspace's cap
 * while it lives; a token's stream ends within `recheckMs` of the token's revocation, and
 * a stream opened without a token within `recheckMs` of the server leaving open mode (the
 * first token created), so no anonymous reader keeps a feed of a protected workspace.
 * graphql-ws subscriptions are guarded by the WebSocket glue instead (per subscriber,
 * since identical ones share one execution; revocation closes the socket).
 */
export function useSseSubscriptionGuards(opts: {
  cap: Cap;
  tokenStillValid: (ctx: Context) => Promise<boolean>;
  /** Whether requests without a token are still served (open mode). */
  stillOpen: () => Promise<boolean>;
  recheckMs: number;
}): Plugin<Context> {
  return {
    onSubscribe({ args }) {
      const ctx = args.contextValue as Context & { connectionParams?: unknown };
      if (ctx.connectionParams !== undefined) return;
      return {
        onSubscribeResult({ result, setResult }) {
          if (!isAsyncIterable(result)) return;
          const release = opts.cap.acquire(ctx.access.workspaceId);
          const iterator = result[Symbol.asyncIterator]();
          if (!release) {
            void iterator.return?.();
            setResult({ errors: [rateLimitedSubscription(opts.cap)] });
            return;
          }
          const counted = onIteratorEnd(result as AsyncIterable<Result>, release);
          setResult(
            ctx.access.tokenId
              ? endWhenRevoked(counted, () => opts.tokenStillValid(ctx), opts.recheckMs)
              : endWhenRevoked(counted, opts.stillOpen, opts.recheckMs, TOKENS_NOW_REQUIRED),
          );
        },
      };
    },
  };
}
