import { type DocumentNode, type ExecutionResult, GraphQLError, getOperationAST } from 'graphql';
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

/** Answers up to this size are measured in one walk and serialized as usual, in one piece. */
export const SMALL_ANSWER_BYTES = 64 * 1024;
/** About the longest a large answer's serialization holds the event loop at a time. */
const SLICE_MS = 8;

/** A container being written: its items (an array's, or an object's values by `keys`) and how far. */
interface Frame {
  value: unknown[] | Record<string, unknown>;
  keys: string[] | null;
  i: number;
  /** Whether an item has been written (the next one needs a comma). */
  wrote: boolean;
}

/**
 * Values of up to this weight are serialized natively in one call, well under a millisecond:
 * each value weighs 1, and a string 1 more per 64 characters.
 */
const RUN_WEIGHT = 4096;

/**
 * The weight of `value`, or more than `limit` as soon as it passes it: a bounded walk, and
 * shallow (nesting past 32 counts as heavy), so no value holds it long or deep.
 */
function weightWithin(value: unknown, limit: number, depth = 0): number {
  if (typeof value === 'string') return 1 + (value.length >> 6);
  if (value === null || typeof value !== 'object') return 1;
  if (depth > 32) return limit + 1;
  let n = 1;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && n <= limit; i++) n += weightWithin(value[i], limit - n, depth + 1);
  } else {
    for (const key in value) {
      n += weightWithin((value as Record<string, unknown>)[key], limit - n, depth + 1);
      if (n > limit) break;
    }
  }
  return n;
}

const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `value` as JSON, the text JSON.stringify makes of it, built in slices of at most about
 * `sliceMs` with the event loop free between them; or null as soon as the text passes
 * `maxBytes` (UTF-8). Runs of values up to RUN_WEIGHT are serialized natively; heavier
 * containers are walked with an explicit stack, so no nesting exhausts the call stack.
 */
export async function stringifyWithin(value: unknown, maxBytes: number, sliceMs = SLICE_MS): Promise<string | null> {
  const chunks: string[] = [];
  let bytes = 0;
  const stack: Frame[] = [];
  const write = (text: string) => {
    chunks.push(text);
    bytes += text.length > 64 ? Buffer.byteLength(text) : text.length;
  };
  /** Writes a small value whole, or opens a large container and pushes its frame. */
  const open = (v: unknown) => {
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function')
      v = (v as { toJSON: () => unknown }).toJSON();
    if (v === null || typeof v !== 'object' || weightWithin(v, RUN_WEIGHT) <= RUN_WEIGHT)
      write(JSON.stringify(v) ?? 'null');
    else if (Array.isArray(v)) {
      write('[');
      stack.push({ value: v, keys: null, i: 0, wrote: false });
    } else {
      write('{');
      stack.push({ value: v as Record<string, unknown>, keys: Object.keys(v), i: 0, wrote: false });
    }
  };
  open(value);
  let deadline = performance.now() + sliceMs;
  while (stack.length > 0) {
    if (bytes > maxBytes) return null;
    if (performance.now() > deadline) {
      await pause();
      deadline = performance.now() + sliceMs;
    }
    const frame = stack[stack.length - 1] as Frame;
    if (frame.keys === null) {
      const items = frame.value as unknown[];
      if (frame.i >= items.length) {
        stack.pop();
        write(']');
        continue;
      }
      if (frame.wrote) write(',');
      frame.wrote = true;
      // A run of light items, natively; an item too heavy for a run is opened instead.
      let end = frame.i;
      for (let weight = 0; end < items.length; end++) {
        const item = weightWithin(items[end], RUN_WEIGHT - weight);
        if (weight + item > RUN_WEIGHT) break;
        weight += item;
      }
      if (end > frame.i) {
        write(JSON.stringify(items.slice(frame.i, end)).slice(1, -1));
        frame.i = end;
      } else open(items[frame.i++]);
    } else {
      const keys = frame.keys;
      if (frame.i >= keys.length) {
        stack.pop();
        write('}');
        continue;
      }
      const key = keys[frame.i++] as string;
      const item = (frame.value as Record<string, unknown>)[key];
      // As JSON.stringify: properties without a JSON value are left out.
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      write(frame.wrote ? `,${JSON.stringify(key)}:` : `${JSON.stringify(key)}:`);
      frame.wrote = true;
      open(item);
    }
  }
  return bytes > maxBytes ? null : chunks.join('');
}

export function tooLarge(maxBytes: number, mutation: boolean): ExecutionResult {
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

/** How a transport is to send an answer: refused, as usual, or with its data's JSON made already. */
export type Measured = { tooLarge: true } | { tooLarge: false; dataJson?: string };

/**
 * Measures a query's or mutation's answer against `maxBytes` without holding the event loop.
 * A small answer (the usual case) is measured in one bounded walk and left to the transport
 * to serialize. A larger one has its data serialized here, in slices (stringifyWithin), and
 * the transport sends that text (`withData`) instead of serializing the data again.
 */
export async function measureAnswer(result: ExecutionResult, maxBytes: number): Promise<Measured> {
  const small = Math.min(maxBytes, SMALL_ANSWER_BYTES);
  const size = jsonSize(result, small);
  if (size !== Number.POSITIVE_INFINITY) return { tooLarge: false };
  if (small === maxBytes) return { tooLarge: true };
  if (result.data == null) return { tooLarge: jsonSize(result, maxBytes) === Number.POSITIVE_INFINITY };
  const rest = jsonSize({ ...result, data: null }, maxBytes);
  const dataJson = rest === Number.POSITIVE_INFINITY ? null : await stringifyWithin(result.data, maxBytes - rest);
  return dataJson === null ? { tooLarge: true } : { tooLarge: false, dataJson };
}

/** The JSON of an answer (`rest`: its errors and extensions, formatted) with data made already. */
export function withData(rest: object, dataJson: string): string {
  const { data: _data, stringify: _stringify, ...others } = rest as Record<string, unknown>;
  const head = JSON.stringify(others);
  return head === '{}' ? `{"data":${dataJson}}` : `${head.slice(0, -1)},"data":${dataJson}}`;
}

type ResultWithSerializer = ExecutionResult & { stringify?: (result: ExecutionResult) => string };

/**
 * Refuses any answer, query, mutation or subscription event, whose JSON would pass
 * `maxBytes`, with one RESPONSE_TOO_LARGE error in its place, before it is serialized: the
 * string that would be built otherwise can pass what V8 can hold and end as an internal
 * error after seconds of work.
 *
 * Queries and mutations are measured by their transport, with measureAnswer: over HTTP here
 * (Yoga's onExecutionResult, which may wait, unlike envelop's hooks), over WebSockets in
 * server/ws.ts. Those refusals come after the operation's own hooks (observability's
 * included), so `onRefused` hears of each. Subscription events, small by design, are
 * measured as they pass, and reads stopped by the read budget are refused as soon as
 * execution ends.
 */
export function useResponseCap(maxBytes: number, onRefused: (document: DocumentNode) => void = () => {}): Plugin {
  type Payload = { result: unknown; setResult: (r: ExecutionResult) => void };
  const check = ({ result, setResult }: Payload) => {
    if (jsonSize(result, maxBytes) === Number.POSITIVE_INFINITY) setResult(tooLarge(maxBytes, false));
  };
  // Each HTTP request's operation, for a refusal once its answer is measured: whether it is a
  // mutation (the refusal says its writes were made) and its document (`onRefused`, since the
  // operation's own hooks have ended by then).
  const operations = new WeakMap<object, { document: DocumentNode; mutation: boolean }>();
  return {
    onExecute: ({ args }) => {
      const mutation = getOperationAST(args.document, args.operationName)?.operation === 'mutation';
      const request = (args.contextValue as { request?: object } | undefined)?.request;
      if (request) operations.set(request, { document: args.document, mutation });
      const budget = (args.contextValue as { readBudget?: ReadBudget } | undefined)?.readBudget;
      return {
        onExecuteDone: (payload) =>
          handleStreamOrSingleExecutionResult(payload, (done) => {
            // Reads stopped at the cap: the fields they left null are no answer.
            if (budget?.spent) done.setResult(tooLarge(maxBytes, mutation));
          }),
      };
    },
    onExecutionResult: async ({ request, result, setResult }) => {
      if (!result || isAsyncIterable(result) || Array.isArray(result) || (result as ResultWithSerializer).stringify)
        return;
      const measured = await measureAnswer(result, maxBytes);
      const operation = operations.get(request);
      if (measured.tooLarge) {
        setResult(tooLarge(maxBytes, operation?.mutation === true));
        if (operation) onRefused(operation.document);
      } else if (measured.dataJson !== undefined) {
        const dataJson = measured.dataJson;
        // Yoga calls this with the answer's errors formatted for HTTP.
        setResult({ ...result, stringify: (formatted) => withData(formatted, dataJson) });
      }
    },
    onSubscribe: () => ({
      onSubscribeResult: ({ result, setResult }) => {
        if (!isAsyncIterable(result)) {
          check({ result, setResult });
          return;
        }
        return { onNext: check };
      },
    }),
  };
}
