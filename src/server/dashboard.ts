import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { sameHostSockets } from './playground.ts';

/** The dashboard's sources: `web/index.html` and the TypeScript app under `web/src/`. */
const WEB_ROOT = fileURLToPath(new URL('../../web/', import.meta.url));

/** One file the dashboard serves, ready to send. */
interface Asset {
  body: Buffer;
  /** The body gzipped, sent to clients that accept it (the bundle shrinks to about a third). */
  gzipped: Buffer;
  contentType: string;
  etag: string;
  /** Hashed assets are requested as `/app.js?v=<hash>` and may be cached for good. */
  immutable: boolean;
}

/**
 * The dashboard talks to `/graphql` on its own origin only (HTTP, and WebSockets to the host
 * it was loaded from); no external URL is ever loaded. Cytoscape sets inline styles on its
 * canvas container, hence `'unsafe-inline'` for styles alone.
 */
const csp = (host: string) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${sameHostSockets(host)}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

/**
 * Bundles and minifies the app in memory and fills the hashed asset URLs into index.html.
 * `development` keeps the libraries' development checks (urql and graphcache warn on the console
 * about documents and results that do not fit the cache) and skips minifying: for tests.
 */
async function buildAssets(development = false): Promise<Map<string, Asset>> {
  const result = await build({
    entryPoints: { app: `${WEB_ROOT}src/main.ts` },
    bundle: true,
    minify: !development,
    write: false,
    outdir: '/dashboard',
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': development ? '"development"' : '"production"' },
  });
  const assets = new Map<string, Asset>();
  const versions: Record<string, string> = {};
  for (const file of result.outputFiles) {
    const name = file.path.slice(file.path.lastIndexOf('/'));
    const body = Buffer.from(file.contents);
    const contentType = name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
    const asset: Asset = { body, gzipped: gzipSync(body), contentType, etag: etagOf(body), immutable: true };
    assets.set(name, asset);
    versions[name] = asset.etag.slice(1, 13);
  }
  const template = await readFile(`${WEB_ROOT}index.html`, 'utf8');
  const html = template.replace(/\{\{(\/[\w.-]+)\}\}/g, (_, name: string) => `${name}?v=${versions[name] ?? '0'}`);
  const body = Buffer.from(html, 'utf8');
  assets.set('/', {
    body,
    gzipped: gzipSync(body),
    contentType: 'text/html; charset=utf-8',
    etag: etagOf(body),
    immutable: false,
  });
  return assets;
}

/**
 * Serves the realtime dashboard: `/` (index.html), `/app.js` and `/app.css`, built from `web/`
 * with esbuild on the first request and kept in memory. Resolves false for any other path (or
 * method), so the caller hands the request on, e.g. to Yoga:
 *
 *   const dashboard = createDashboardHandler();
 *   http.createServer(async (req, res) => { if (await dashboard(req, res)) return; yoga(req, res); });
 */
export function createDashboardHandler(
  options: { onBuildError?: (error: unknown) => void; development?: boolean } = {},
): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const onBuildError = options.onBuildError ?? ((error) => console.error('dashboard build failed:', error));
  let assets: Promise<Map<string, Asset>> | null = null;

  return async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const url = new URL(req.url ?? '/', 'http://dashboard');
    const path = url.pathname === '/index.html' ? '/' : url.pathname;
    if (path !== '/' && path !== '/app.js' && path !== '/app.css') return false;

    assets ??= buildAssets(options.development);
    let asset: Asset | undefined;
    try {
      asset = (await assets).get(path);
    } catch (error) {
      // Let the next request try again (e.g. after the sources were fixed).
      assets = null;
      onBuildError(error);
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('The dashboard could not be built; see the server log.\n');
      return true;
    }
    if (!asset) return false;

    const headers: Record<string, string> = {
      'content-type': asset.contentType,
      etag: asset.etag,
      // A hashed URL never changes content; anything else is revalidated on each use.
      'cache-control':
        asset.immutable && url.searchParams.get('v') === asset.etag.slice(1, 13)
          ? 'public, max-age=31536000, immutable'
          : 'no-cache',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      vary: 'accept-encoding',
    };
    if (path === '/') {
      headers['content-security-policy'] = csp(String(req.headers.host ?? ''));
      headers['x-frame-options'] = 'DENY';
    }
    if (req.headers['if-none-match'] === asset.etag) {
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gzip ? asset.gzipped : asset.body;
    if (gzip) headers['content-encoding'] = 'gzip';
    headers['content-length'] = String(body.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
