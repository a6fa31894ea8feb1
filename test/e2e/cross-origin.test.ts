import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE_CONTENT } from '../helpers/operations.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { type Browser, chromiumAvailable, launchBrowser } from './browser.ts';

/**
 * A web page of another origin, open in the user's browser while Mini-Sphere runs on loopback
 * in open mode, must not read or change its memory: not by fetch (CORS keeps the answer from
 * the page, but a write would already have happened), not by a no-cors post, and above all not
 * by WebSocket, which browsers never preflight. 127.0.0.2 is a different origin and a different
 * host, yet on this machine, as a page on any site the user visits would be.
 */

const READ = '{ recent(n: 5) { content } }';
const COUNT = '{ count }';

/** What the page saw of one attempt. */
interface FetchResult {
  label: string;
  outcome: 'rejected' | 'response';
  error?: string;
  type?: string;
  status?: number;
  body?: string;
}
interface SocketResult {
  label: string;
  outcome: 'closed' | 'acked' | 'timeout' | 'threw';
  events: string[];
}
interface AttackResults {
  fetches: FetchResult[];
  sockets: SocketResult[];
}
/** A response as the browser received it, headers a script cannot read included. */
interface SeenResponse {
  url: string;
  status: number;
  allowOrigin: string | undefined;
}

/**
 * The page another site would serve. Its targets, workspace and content come in the query
 * string; it runs every attempt and leaves what it saw in `window.__results`.
 */
const ATTACKER_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>an ordinary web page</title></head><body>
<script>
const CAPTURE = ${JSON.stringify(CAPTURE_CONTENT)};
const READ = ${JSON.stringify(READ)};
const params = new URLSearchParams(location.search);
const targets = JSON.parse(params.get('targets'));
const workspace = params.get('workspace');
const content = params.get('content');
window.__results = null;

async function tryFetch(label, url, init) {
  try {
    const res = await fetch(url, init);
    let body;
    try { body = await res.text(); } catch (e) { body = 'unreadable: ' + e; }
    return { label, outcome: 'response', type: res.type, status: res.status, body };
  } catch (e) {
    return { label, outcome: 'rejected', error: e.name + ': ' + e.message };
  }
}

function trySocket(label, url) {
  return new Promise((resolve) => {
    const events = [];
    let socket;
    try { socket = new WebSocket(url, 'graphql-transport-ws'); }
    catch (e) { resolve({ label, outcome: 'threw', events: [String(e)] }); return; }
    let completed = 0;
    const finish = (outcome) => { clearTimeout(timer); resolve({ label, outcome, events }); try { socket.close(); } catch {} };
    const timer = setTimeout(() => finish('timeout'), 20000);
    socket.onopen = () => {
      events.push('open');
      socket.send(JSON.stringify({ type: 'connection_init', payload: { workspace } }));
    };
    socket.onerror = () => events.push('error');
    socket.onclose = (ev) => {
      events.push('close:' + ev.code);
      finish(events.includes('connection_ack') ? 'acked' : 'closed');
    };
    socket.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      events.push(msg.type);
      if (msg.type === 'connection_ack') {
        socket.send(JSON.stringify({ id: 'w', type: 'subscribe',
          payload: { query: CAPTURE, variables: { input: { content } } } }));
        socket.send(JSON.stringify({ id: 'r', type: 'subscribe', payload: { query: READ } }));
      } else if (msg.type === 'next' || msg.type === 'error') {
        events.push('payload:' + JSON.stringify(msg.payload));
      } else if (msg.type === 'complete' && ++completed === 2) {
        finish('acked');
      }
    };
  });
}

(async () => {
  const fetches = [];
  const sockets = [];
  for (const target of targets) {
    const json = (query, variables) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-workspace': workspace },
      body: JSON.stringify({ query, variables }),
    });
    fetches.push(await tryFetch(target + ' capture', target + '/graphql', json(CAPTURE, { input: { content } })));
    fetches.push(await tryFetch(target + ' read', target + '/graphql', json(READ)));
    fetches.push(await tryFetch(target + ' no-cors', target + '/graphql', {
      method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ query: CAPTURE, variables: { input: { content } } }),
    }));
    sockets.push(await trySocket(target + ' socket', target.replace(/^http/, 'ws') + '/graphql'));
  }
  window.__results = { fetches, sockets };
})();
</script></body></html>`;

/** The other site: a plain HTTP server on 127.0.0.2 serving the page above. */
async function startAttackerSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(ATTACKER_PAGE);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.2', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.2:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** sha256 of every file under a directory, by relative path. */
async function hashTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = join(rel, entry.name);
      if (entry.isDirectory()) {
        await walk(path);
      } else {
        const bytes = await readFile(join(dir, path));
        out[path] = createHash('sha256').update(bytes).digest('hex');
      }
    }
  };
  await walk('');
  return out;
}

/** Requests refused by the guard for an Origin, from /metrics. */
async function originRefusals(srv: TestServer): Promise<number> {
  const text = await (await fetch(`${srv.origin}/metrics`)).text();
  const m = /^sphere_requests_refused_total\{reason="origin"\} (\d+)/m.exec(text);
  return m ? Number(m[1]) : 0;
}

/** Opens the page of the other site aimed at `targets` and waits for everything it tried. */
async function runAttack(
  browser: Browser,
  site: string,
  targets: string[],
  workspace: string,
  content: string,
): Promise<{ page: Page; results: AttackResults; seen: SeenResponse[] }> {
  const page = await browser.newPage();
  const seen: SeenResponse[] = [];
  page.on('response', (res) => {
    if (new URL(res.url()).pathname === '/graphql') {
      seen.push({ url: res.url(), status: res.status(), allowOrigin: res.headers()['access-control-allow-origin'] });
    }
  });
  const query = new URLSearchParams({ targets: JSON.stringify(targets), workspace, content });
  await page.goto(`${site}/?${query}`);
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const results = await page.evaluate(() => (window as unknown as { __results: AttackResults | null }).__results);
    if (results) return { page, results, seen };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the page did not finish its attempts in time');
}

const enabled = chromiumAvailable();

describe.skipIf(!enabled)('pages of other origins (chromium)', () => {
  let browser: Browser;
  let site: { origin: string; close(): Promise<void> };
  let srv: TestServer;
  const secret = `the vault combination is ${randomUUID()}`;
  const workspace = 'cross-origin';

  beforeAll(async () => {
    [browser, site, srv] = await Promise.all([launchBrowser(), startAttackerSite(), startTestServer()]);
    await srv.gqlOk(CAPTURE_CONTENT, { input: { content: secret } }, { workspace });
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await srv?.stop();
  });

  it('cannot read or change anything, by fetch or WebSocket, via 127.0.0.1 or localhost', async () => {
    const port = new URL(srv.origin).port;
    const planted = `planted by another site ${randomUUID()}`;
    const countBefore = (await srv.gqlOk<{ count: number }>(COUNT, {}, { workspace })).count;
    const refusedBefore = await originRefusals(srv);
    const filesBefore = await hashTree(srv.dataDir);
    expect(countBefore).toBe(1);
    expect(Object.keys(filesBefore).length).toBeGreaterThan(0);

    const targets = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
    const { page, results, seen } = await runAttack(browser, site.origin, targets, workspace, planted);
    await page.close();

    // The data is exactly as it was: same count, no planted entry, same bytes on disk.
    const countAfter = (await srv.gqlOk<{ count: number }>(COUNT, {}, { workspace })).count;
    const recent = await srv.gqlOk<{ recent: { content: string }[] }>(READ, {}, { workspace });
    expect(countAfter).toBe(countBefore);
    expect(recent.recent.map((e) => e.content)).toEqual([secret]);
    expect(await hashTree(srv.dataDir)).toEqual(filesBefore);

    // Nothing came back to the page: CORS requests fail outright (or show a bare 403),
    // no-cors ones are opaque, and the server's data never reaches it.
    expect(results.fetches).toHaveLength(6);
    for (const f of results.fetches) {
      if (f.label.endsWith('no-cors')) {
        const opaque = { type: 'opaque', status: 0, body: '' };
        if (f.outcome === 'response') expect({ type: f.type, status: f.status, body: f.body }, f.label).toEqual(opaque);
      } else if (f.outcome === 'rejected') {
        expect(f.error, f.label).toMatch(/^TypeError/);
      } else {
        expect(f.status, f.label).toBe(403);
      }
    }
    expect(JSON.stringify(results)).not.toContain(secret);
    // What the browser's network layer got (the script sees less): refusals, with no CORS header.
    for (const r of seen) expect(r, r.url).toEqual({ url: r.url, status: 403, allowOrigin: undefined });

    // No socket opened, let alone reached connection_ack.
    expect(results.sockets).toHaveLength(2);
    for (const s of results.sockets) {
      expect(s.outcome, `${s.label}: ${s.events.join(' ')}`).toBe('closed');
      expect(s.events).not.toContain('open');
      expect(s.events).not.toContain('connection_ack');
    }

    // The server itself refused them (two preflights, one post and one upgrade per target),
    // rather than answering and leaving the browser to hide the answer.
    expect((await originRefusals(srv)) - refusedBefore).toBeGreaterThanOrEqual(8);
  });

  it('leaves the dashboard, a page of the server itself, working', async () => {
    const page = await browser.newPage();
    await page.addInitScript((ws) => localStorage.setItem('mini-sphere.workspace', ws), workspace);
    await page.goto(`${srv.origin}/`);
    await page.locator('#connection[data-state="live"]').waitFor({ timeout: 60_000 });
    const answer = await page.evaluate(
      async ([query, ws]) => {
        const res = await fetch('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-workspace': ws as string },
          body: JSON.stringify({ query }),
        });
        return { status: res.status, body: await res.json() };
      },
      [COUNT, workspace],
    );
    const { count } = await srv.gqlOk<{ count: number }>(COUNT, {}, { workspace });
    expect(count).toBeGreaterThan(0);
    expect(answer).toEqual({ status: 200, body: { data: { count } } });
    expect(browser.errorsOf(page)).toEqual([]);
    await page.close();
  });

  it('lets a page of an origin listed in corsOrigins in, with exactly that origin allowed', async () => {
    const listed = await startTestServer({ config: { corsOrigins: [site.origin] } });
    try {
      const port = new URL(listed.origin).port;
      await listed.gqlOk(CAPTURE_CONTENT, { input: { content: secret } }, { workspace });
      const planted = `written by a listed origin ${randomUUID()}`;
      const targets = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
      const { page, results, seen } = await runAttack(browser, site.origin, targets, workspace, planted);
      await page.close();

      // Each answer the page could read named that one origin, never a wildcard.
      const readable = seen.filter((r) => r.status === 200);
      expect(readable.length).toBeGreaterThanOrEqual(4);
      for (const r of readable) expect(r.allowOrigin, r.url).toBe(site.origin);
      for (const f of results.fetches.filter((r) => !r.label.endsWith('no-cors'))) {
        expect({ label: f.label, outcome: f.outcome, status: f.status }).toEqual({
          label: f.label,
          outcome: 'response',
          status: 200,
        });
        expect(JSON.parse(f.body ?? '').errors).toBeUndefined();
      }
      const reads = results.fetches.filter((r) => r.label.endsWith(' read'));
      for (const r of reads) expect(r.body).toContain(secret);
      for (const s of results.sockets) expect(s.outcome, `${s.label}: ${s.events.join(' ')}`).toBe('acked');

      // So does the preflight.
      const preflight = await fetch(listed.url, {
        method: 'OPTIONS',
        headers: {
          origin: site.origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-workspace',
        },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBe(site.origin);
      const recent = await listed.gqlOk<{ recent: { content: string }[] }>(READ, {}, { workspace });
      expect(recent.recent.map((e) => e.content)).toContain(planted);
    } finally {
      await listed.stop();
    }
  });
});
