import { createRequire } from 'node:module';
import { GraphQLError } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

describe('HTTP routes', () => {
  it('/health answers 200 with JSON', async () => {
    const res = await fetch(`${srv.origin}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ status: 'ok' });
    const head = await fetch(`${srv.origin}/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('GET /graphql in a browser serves GraphiQL with no external CDN', async () => {
    const res = await fetch(srv.url, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toMatch(/<!doctype html>/i);
    expect(html.toLowerCase()).toContain('graphiql');
    expect(html).toContain('Mini-Sphere');
    // Nothing is fetched from elsewhere: no remote script or stylesheet, no remote CSS import.
    expect(html).not.toMatch(/<script[^>]*\bsrc\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html).not.toMatch(/<link[^>]*\bhref\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html).not.toMatch(/@import\s+(?:url\()?["']?https?:/i);
    expect(html).not.toMatch(/unpkg\.com|jsdelivr\.net|cdnjs|esm\.sh/i);
  });

  it('GET /graphql runs a query given in the URL', async () => {
    const res = await fetch(`${srv.url}?query=${encodeURIComponent('{ count }')}`, {
      headers: { accept: 'application/json', 'x-workspace': 'http-get' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { count: 0 } });
  });

  it('an unknown route is 404', async () => {
    for (const path of ['/nope', '/graphql/extra', '/healthz']) {
      const res = await fetch(`${srv.origin}${path}`);
      expect(res.status, path).toBe(404);
      await res.body?.cancel();
    }
    const post = await fetch(`${srv.origin}/nope`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(404);
    await post.body?.cancel();
  });

  it('tests load the same graphql module as Node, so error masking behaves as in production', () => {
    // graphql-yoga and Pothos load `graphql` through Node's resolution (index.js); if Vite gave our
    // sources index.mjs instead, `instanceof GraphQLError` would fail and domain errors would be masked.
    const nodeGraphql = createRequire(import.meta.url)('graphql') as typeof import('graphql');
    expect(GraphQLError).toBe(nodeGraphql.GraphQLError);
  });
});
