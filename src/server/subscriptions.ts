import type { IncomingMessage } from 'node:http';
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { DomainError } from '../contract/errors.ts';
import type { Context } from '../graphql/context.ts';
import { toGraphQLError } from '../graphql/errors.ts';
import type { Access } from '../workspaces/access.ts';
import { type Cap, onIteratorEnd } from './caps.ts';
import { bearerOf, type Gatekeeper } from './context.ts';
import { type Rechecks, watchAccess } from './rechecks.ts';

/** A subscription's answer once it is refused or ended: one result carrying the error. */
export const rateLimitedSubscription = (cap: Cap) =>
  toGraphQLError(
    new DomainError('RATE_LIMITED', `this workspace already has ${cap.max} live subscriptions; close some and retry`),
  );

/** The refusal of a stream or socket past the per-client cap. */
export const tooManyStreams = (cap: Cap) =>
  `Too many connections: at most ${cap.max} WebSockets and server-sent-event streams per client`;

/**
 * What one client holds its streams and sockets under: its token, or in open mode (where
 * every caller is anonymous) its peer address.
 */
export const clientKey = (access: Access, peer: string | undefined) =>
  access.tokenId ? `token:${access.tokenId}` : `peer:${peer ?? 'unknown'}`;

const accessEnded = (message: string) => toGraphQLError(new DomainError('UNAUTHENTICATED', message));

type Result = ExecutionResult;

/**
 * Ends a stream with an UNAUTHENTICATED result once `watch` reports its access denied: a
 * server-sent-events stream has no socket to close, so the stream itself ends. `watch`
 * starts watching and returns the function that stops.
 */
export function endWhenDenied(
  source: AsyncIterableIterator<Result>,
  watch: (onDenied: (reason: string) => void) => () => void,
): AsyncIterableIterator<Result> {
  let ended = false;
  let reportDenied: ((reason: string) => void) | null = null;
  const denial = new Promise<{ denied: string }>((resolve) => {
    reportDenied = (reason) => resolve({ denied: reason });
  });
  const unwatch = watch((reason) => reportDenied?.(reason));
  const finish = async () => {
    ended = true;
    unwatch();
    await source.return?.();
  };
  const iterator: AsyncIterableIterator<Result> = {
    async next() {
      if (ended) return { done: true, value: undefined };
      const next = await Promise.race([source.next(), denial]);
      if ('denied' in next) {
        await finish();
        return { done: false, value: { errors: [accessEnded(next.denied)] } };
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
 * and against its client's cap (the same one WebSockets count against) while it lives; a
 * token's stream ends within a recheck of the token's revocation, and a stream opened
 * without a token within a recheck of the server leaving open mode (the first token
 * created), so no anonymous reader keeps a feed of a protected workspace. Rechecks are
 * shared per token (see Rechecks). graphql-ws subscriptions are guarded by the WebSocket
 * glue instead (per subscriber, since identical ones share one execution; revocation
 * closes the socket).
 */
export function useSseSubscriptionGuards(opts: {
  /** Live subscriptions per workspace. */
  cap: Cap;
  /** Streams and sockets per client (token, or peer in open mode). */
  sockets: Cap;
  gate: Pick<Gatekeeper, 'stillValid' | 'tokenMode'>;
  rechecks: Rechecks;
}): Plugin<Context> {
  return {
    onSubscribe({ args }) {
      const ctx = args.contextValue as Context & {
        connectionParams?: unknown;
        req?: IncomingMessage;
        request?: Request;
      };
      if (ctx.connectionParams !== undefined) return;
      return {
        onSubscribeResult({ result, setResult }) {
          if (!isAsyncIterable(result)) return;
          const iterator = result[Symbol.asyncIterator]();
          const client = opts.sockets.acquire(clientKey(ctx.access, ctx.req?.socket.remoteAddress));
          if (!client) {
            void iterator.return?.();
            setResult({ errors: [toGraphQLError(new DomainError('RATE_LIMITED', tooManyStreams(opts.sockets)))] });
            return;
          }
          const release = opts.cap.acquire(ctx.access.workspaceId);
          if (!release) {
            client();
            void iterator.return?.();
            setResult({ errors: [rateLimitedSubscription(opts.cap)] });
            return;
          }
          const counted = onIteratorEnd(result as AsyncIterable<Result>, () => {
            release();
            client();
          });
          const token = bearerOf(ctx.request?.headers.get('authorization'));
          setResult(
            endWhenDenied(counted, (onDenied) => watchAccess(opts.rechecks, opts.gate, ctx.access, token, onDenied)),
          );
        },
      };
    },
  };
}
