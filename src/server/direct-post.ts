import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ExecutionResult, getOperationAST, parse } from 'graphql';
import { type GraphQLParams, processRegularResult, type YogaServerInstance } from 'graphql-yoga';
import type { Context } from '../graphql/context.ts';

/**
 * Plain JSON POSTs, the requests agents send, answered without wrapping the node request and
 * response in fetch-API objects. The body is read and parsed here; the operation then runs
 * through Yoga's own parameter hooks, envelop plugins (limits, masking, observability,
 * context) and result processor, so the status, headers and body are what Yoga's full
 * request handling answers. Profiling showed that wrapping costing about a third of a
 * capture's CPU time.
 *
 * Everything else goes through Yoga's request handling: other content types, CORS requests
 * (an Origin header), accept headers other than plain JSON, encoded bodies, query strings,
 * batches, bodies that are not a well-formed GraphQL request, and subscriptions (streamed
 * as server-sent events).
 */
export interface DirectPost {
  /** Whether `req`'s headers allow answering it directly (its body is not read yet). */
  accepts(req: IncomingMessage): boolean;
  /** Answers a request `accepts` took, given its body; falls back to Yoga when the body turns out unusual. */
  handle(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void>;
}

/** What Yoga's regular (non-streaming) result processor answers with. */
const REGULAR_MEDIA_TYPES = ['application/graphql-response+json', 'application/json'];

/**
 * The media type Yoga's content negotiation picks for a plain result, or null when it would
 * not pick a JSON one. As in Yoga: the Accept list is read backwards, only UTF-8 counts,
 * wildcards match, and the last match wins.
 */
export function negotiate(accept: string | undefined): string | null {
  // A client sends the same Accept header request after request: remember the last answer.
  if (lastNegotiated && accept === lastNegotiated.accept) return lastNegotiated.chosen;
  const chosen = negotiateAfresh(accept);
  lastNegotiated = { accept, chosen };
  return chosen;
}

let lastNegotiated: { accept: string | undefined; chosen: string | null } | null = null;

function negotiateAfresh(accept: string | undefined): string | null {
  const asked = (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',').reverse();
  let chosen: string | null = null;
  for (const entry of asked) {
    const [mediaType = '', ...params] = entry.split(';');
    const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
    if (charset !== 'charset=utf-8') continue;
    const [pre, suf] = mediaType.split('/');
    for (const offered of REGULAR_MEDIA_TYPES) {
      const [offeredPre, offeredSuf] = offered.split('/');
      if ((pre === '*' || pre === offeredPre) && (suf === '*' || suf === offeredSuf)) chosen = offered;
    }
  }
  return chosen;
}

const JSON_CONTENT_TYPES = new Set(['application/json', 'application/json;charset=utf-8']);
const PARAM_NAMES = new Set(['query', 'variables', 'operationName', 'extensions']);
/**
 * Whether a document's operation is a subscription (streamed as server-sent events, so
 * Yoga's). Only documents that mention the word are parsed; one that fails to parse, or
 * whose operation is ambiguous, is Yoga's to answer too.
 */
function isSubscription(query: string, operationName: unknown): boolean {
  if (!query.includes('subscription')) return false;
  try {
    const name = typeof operationName === 'string' ? operationName : undefined;
    const operation = getOperationAST(parse(query), name);
    return !operation || operation.operation === 'subscription';
  } catch {
    return true;
  }
}

/** The request as Yoga's hooks and our context factory see it: method, url and headers. */
interface LightRequest {
  method: string;
  url: string;
  headers: { get(name: string): string | null; has(name: string): boolean };
}

/** A stand-in for the fetch API's Response that keeps what the result processor built. */
class Answer {
  readonly body: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(body: string | null, init?: { status?: number; headers?: Record<string, string> }) {
    this.body = body ?? '';
    this.status = init?.status ?? 200;
    this.headers = init?.headers ?? {};
  }
}

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).replace(/\s/g, '').toLowerCase();
}

function acceptOf(req: IncomingMessage): string | undefined {
  const value = req.headers.accept;
  return Array.isArray(value) ? value.join(',') : value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parsed body as GraphQL parameters, or null when Yoga should judge it. */
function paramsOf(text: string): GraphQLParams | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(body) || typeof body.query !== 'string' || isSubscription(body.query, body.operationName)) return null;
  for (const key of Object.keys(body)) if (!PARAM_NAMES.has(key)) return null;
  const { variables, operationName, extensions } = body;
  if (variables != null && !isObject(variables)) return null;
  if (operationName != null && typeof operationName !== 'string') return null;
  if (extensions != null && !isObject(extensions)) return null;
  return body as GraphQLParams;
}

function lightRequest(req: IncomingMessage): LightRequest {
  const get = (name: string) => {
    const value = req.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return {
    method: 'POST',
    url: `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`,
    headers: { get, has: (name) => get(name) !== null },
  };
}

export function createDirectPost(
  yoga: YogaServerInstance<Record<string, unknown>, Context>,
  opts: { path: string; onError: (error: unknown) => void },
): DirectPost {
  const fetchAPI = { Response: Answer } as unknown as Parameters<typeof processRegularResult>[1];
  return {
    accepts(req) {
      return (
        req.url === opts.path &&
        req.method === 'POST' &&
        JSON_CONTENT_TYPES.has(header(req, 'content-type')) &&
        negotiate(acceptOf(req)) !== null &&
        req.headers.origin === undefined &&
        req.headers['content-encoding'] === undefined
      );
    },
    async handle(req, res, body) {
      const params = paramsOf(body.toString('utf8'));
      if (!params) {
        // Yoga reads a body already taken from the stream from `req.body`.
        (req as IncomingMessage & { body?: Buffer }).body = body;
        await yoga.requestListener(req, res);
        return;
      }
      const request = lightRequest(req);
      let answer: Answer;
      try {
        const result = (await yoga.getResultForParams(
          { params, request: request as unknown as Request },
          { req, res, request, params },
        )) as ExecutionResult;
        answer = (await processRegularResult(result, fetchAPI, negotiate(acceptOf(req))!)) as unknown as Answer;
      } catch (error) {
        // Yoga turns failures into results itself; this is only for a failure of that.
        opts.onError(error);
        answer = new Answer(
          JSON.stringify({ errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] }),
          { status: 500, headers: { 'Content-Type': 'application/json; charset=utf-8' } },
        );
      }
      res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) });
      res.end(answer.body);
    },
  };
}
