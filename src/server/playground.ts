import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';

/**
 * GraphiQL at GET /graphql, for browsers (Accept: text/html). The page is megabytes of
 * inline script, so it is rendered and gzipped once, on first use, and sent compressed to
 * every client that accepts it. It may talk to this server only (its own origin, and
 * WebSockets to the host it was loaded from), and no other page may frame it.
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

export function createPlayground(opts: { endpoint: string; title: string }): Playground {
  let page: { html: Buffer; gzipped: Buffer } | null = null;
  const render = () => {
    if (!page) {
      const html = Buffer.from(
        renderGraphiQL({ endpoint: opts.endpoint, title: opts.title, subscriptionsProtocol: 'WS' }),
        'utf8',
      );
      page = { html, gzipped: gzipSync(html) };
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
