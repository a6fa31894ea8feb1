import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardHandler } from '../../src/server/dashboard.ts';

// The asset handler alone, in front of a stand-in for Yoga that answers 404 with "next".
let server: Server;
let origin: string;
beforeAll(async () => {
  const dashboard = createDashboardHandler();
  server = createServer(async (req, res) => {
    if (await dashboard(req, res)) return;
    res.writeHead(404).end('next');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('dashboard assets', () => {
  it('serves index.html with hashed, immutable links to the bundle and its CSS', async () => {
    const res = await fetch(`${origin}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await res.text();
    const js = /src="(\/app\.js\?v=[\w-]+)"/.exec(html)?.[1];
    const css = /href="(\/app\.css\?v=[\w-]+)"/.exec(html)?.[1];
    expect(js && css).toBeTruthy();

    const script = await fetch(`${origin}${js}`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('content-encoding')).toBe('gzip'); // fetch asks for it
    expect((await script.text()).length).toBeGreaterThan(10_000);

    const style = await fetch(`${origin}${css}`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await style.text()).toContain('.topbar');
  });

  it('revalidates unversioned requests and answers 304 to a matching ETag', async () => {
    const first = await fetch(`${origin}/app.js`);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${origin}/app.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('leaves every other path and method to the next handler', async () => {
    for (const path of ['/graphql', '/health', '/app.js.map', '/assets/x.png', '/metrics']) {
      const res = await fetch(`${origin}${path}`);
      expect([path, res.status, await res.text()]).toEqual([path, 404, 'next']);
    }
    const post = await fetch(`${origin}/`, { method: 'POST', body: '{}' });
    expect(await post.text()).toBe('next');
  });
});
