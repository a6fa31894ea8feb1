import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';

/**
 * GraphiQL at GET /graphql, for browsers (Accept: text/html). The page is megabytes of
 * inline script, so it is rendered and gzipped once, on first use, and sent compressed to
 * every client that accepts it. It may talk to this server only (its own origin, and
 * WebSockets to the host it was loaded from), and no other page may frame it. Its Headers
 * tab applies to every operation: HTTP requests send them as headers, and subscriptions
 * open a WebSocket whose connectionParams carry them (`authorization`, and `x-workspace`
 * as `workspace`), since a socket is authenticated once, when it opens.
 */
export interface Playground {
  /** Whether `req` asks for the playground page (a browser's GET of the endpoint). */
  wants(req: IncomingMessage): boolean;
  serve(req: IncomingMessage, res: ServerResponse): void;
}

/** GraphiQL's editor runs inline scripts and spawns its language workers from blob: URLs. */
export function playgroundCsp(host: string): string {
  return [
    "default-src 'self'",
    "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:",
    "worker-src 'self' blob:",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${sameHostSockets(host)}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * WebSocket URLs of the host a page was loaded from, for `connect-src`: never `ws:` or
 * `wss:` alone, which would let the page open sockets to any host. The host was checked
 * by the request guard before any page is served.
 */
export function sameHostSockets(host: string): string {
  const safe = /^[A-Za-z0-9.:[\]-]+$/.test(host) ? host : 'invalid.invalid';
  return `ws://${safe} wss://${safe}`;
}

/** The operations a new GraphiQL tab starts with: how to pick a workspace, then one of each kind. */
export function defaultQuery(tokenMode: boolean): string {
  const headers = tokenMode
    ? [
        '# This server needs a token. Put it in the Headers tab below; the token alone',
        '# decides the workspace:',
        '#',
        '#   {"authorization": "Bearer <token>"}',
      ]
    : ['# Pick the workspace in the Headers tab below (without it, "default"):', '#', '#   {"x-workspace": "default"}'];
  return [
    '# Mini-Sphere: memories, typed edges, ranked recall and live events.',
    '#',
    ...headers,
    '#',
    '# Subscriptions use the same headers. Run one operation with the play button',
    '# (Ctrl-Enter runs the one under the cursor).',
    '',
    'mutation Capture {',
    '  capture(input: { content: "We keep one libSQL database per workspace.", tags: ["storage"] }) {',
    '    outcome',
    '    entry { id kind tags createdAt }',
    '  }',
    '}',
    '',
    'query Recall {',
    '  recall(query: "which database do we use", topK: 5) {',
    '    hits { rank score snippet entry { id tags } }',
    '  }',
    '}',
    '',
    'subscription Events {',
    '  events { seq type entryId at }',
    '}',
    '',
  ].join('\n');
}

/**
 * GraphiQL's fetcher, run in the page: HTTP for queries and mutations, and for
 * subscriptions a graphql-ws client per set of credentials (the Headers tab may change
 * between runs, but a socket keeps what it opened with). Expects `graphqlWs` loaded first.
 */
const FETCHER = `
function miniSphereFetcher(endpoint) {
  var clients = new Map();
  var url = new URL(endpoint, location.href);
  var wsUrl = (url.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + url.host + url.pathname;
  function pick(headers, name) {
    for (var key in headers) if (key.toLowerCase() === name && headers[key] != null) return String(headers[key]);
    return undefined;
  }
  function socketFor(headers) {
    var params = {};
    var authorization = pick(headers, 'authorization');
    var workspace = pick(headers, 'x-workspace');
    if (authorization !== undefined) params.authorization = authorization;
    if (workspace !== undefined) params.workspace = workspace;
    var key = JSON.stringify(params);
    var client = clients.get(key);
    if (!client) {
      client = graphqlWs.createClient({ url: wsUrl, connectionParams: params, lazy: true, retryAttempts: 0 });
      clients.set(key, client);
    }
    return client;
  }
  function isSubscription(params, doc) {
    var ops = ((doc && doc.definitions) || []).filter(function (d) { return d.kind === 'OperationDefinition'; });
    var op = params.operationName
      ? ops.find(function (d) { return d.name && d.name.value === params.operationName; })
      : ops.length === 1 ? ops[0] : undefined;
    if (op) return op.operation === 'subscription';
    return /^\\s*subscription\\b/.test(String(params.query || '').replace(/#[^\\n]*/g, ''));
  }
  function closed(error) {
    if (error && typeof error.code === 'number') {
      return 'WebSocket closed: ' + error.code + (error.reason ? ' ' + error.reason : '');
    }
    return (error && error.message) || String(error);
  }
  async function* subscribe(client, params) {
    var iterator = client.iterate(params);
    try {
      for await (var result of iterator) yield result;
    } catch (error) {
      // A refused subscription ends with the server's GraphQL errors (an array): shown as sent, code and all.
      if (Array.isArray(error)) {
        yield {
          errors: error.map(function (e) {
            return { message: (e && e.message) || String(e), extensions: e && e.extensions };
          }),
        };
      } else yield { errors: [{ message: closed(error) }] };
    }
  }
  return function (params, opts) {
    var headers = Object.assign({}, opts && opts.headers);
    var body = { query: params.query, operationName: params.operationName || undefined, variables: params.variables };
    if (isSubscription(params, opts && opts.documentAST)) return subscribe(socketFor(headers), body);
    return fetch(url.href, {
      method: 'POST',
      credentials: 'same-origin',
      headers: Object.assign({ 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' }, headers),
      body: JSON.stringify(body),
    }).then(function (res) {
      return res.json().catch(function () {
        return { errors: [{ message: 'HTTP ' + res.status + ' ' + res.statusText }] };
      });
    });
  };
}
`;

/** graphql-ws's browser build, which the page's fetcher uses for subscriptions. */
function graphqlWsBrowserBuild(): string {
  const main = createRequire(import.meta.url).resolve('graphql-ws');
  return readFileSync(join(dirname(main), '..', 'umd', 'graphql-ws.min.js'), 'utf8');
}

/** GraphiQL's page with the fetcher above in place of Yoga's, which sends the Headers tab only over HTTP. */
export function renderPlayground(opts: { endpoint: string; title: string; tokenMode: boolean }): string {
  const options = {
    endpoint: opts.endpoint,
    title: opts.title,
    subscriptionsProtocol: 'WS' as const,
    defaultQuery: defaultQuery(opts.tokenMode),
  };
  const html = renderGraphiQL(options);
  const json = JSON.stringify(options);
  const at = html.indexOf(json);
  if (at < 0 || html.indexOf(json, at + 1) >= 0 || !html.includes('</head>')) {
    throw new Error('GraphiQL page layout changed: cannot install the playground fetcher');
  }
  const withFetcher = `Object.assign(${json}, { fetcher: miniSphereFetcher(${JSON.stringify(opts.endpoint)}) })`;
  const scripts = `<script>${graphqlWsBrowserBuild()}</script>\n<script>${FETCHER}</script>\n</head>`;
  return (html.slice(0, at) + withFetcher + html.slice(at + json.length)).replace('</head>', () => scripts);
}

export function createPlayground(opts: { endpoint: string; title: string; tokenMode: () => boolean }): Playground {
  // One page per mode: the default query tells how to authenticate in that mode.
  const pages = new Map<boolean, { html: Buffer; gzipped: Buffer }>();
  const render = () => {
    const tokenMode = opts.tokenMode();
    let page = pages.get(tokenMode);
    if (!page) {
      const html = Buffer.from(renderPlayground({ endpoint: opts.endpoint, title: opts.title, tokenMode }), 'utf8');
      page = { html, gzipped: gzipSync(html) };
      pages.set(tokenMode, page);
    }
    return page;
  };
  return {
    wants(req) {
      return (
        (req.method === 'GET' || req.method === 'HEAD') &&
        (req.url ?? '').split('?')[0] === opts.endpoint &&
        String(req.headers.accept ?? '').includes('text/html')
      );
    },
    serve(req, res) {
      const { html, gzipped } = render();
      const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
      const body = gzip ? gzipped : html;
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': String(body.length),
        'cache-control': 'no-cache',
        'content-security-policy': playgroundCsp(String(req.headers.host ?? '')),
        'x-frame-options': 'DENY',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        vary: 'accept-encoding',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    },
  };
}
