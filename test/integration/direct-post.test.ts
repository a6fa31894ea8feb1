import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Plain JSON POSTs are answered without Yoga's fetch-API request handling. These tests run the
 * same requests against a server that answers them directly and one that sends everything
 * through Yoga, and require the same status, content type and body.
 */

interface Raw {
  status: number;
  contentType: string | null;
  headers: Headers;
  body: string;
}

interface Pair {
  direct: TestServer;
  yoga: TestServer;
}

async function startPair(config: Partial<Config> = {}): Promise<Pair> {
  const [direct, yoga] = await Promise.all([
    startTestServer({ config }),
    startTestServer({ config, deps: { directPost: false } }),
  ]);
  return { direct, yoga };
}

async function stopPair(pair: Pair | undefined): Promise<void> {
  await Promise.all([pair?.direct.stop(), pair?.yoga.stop()]);
}

async function send(t: TestServer, body: string, headers: Record<string, string> = {}): Promise<Raw> {
  const res = await fetch(t.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body,
  });
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    headers: res.headers,
    body: await res.text(),
  };
}

/** Sends one request to both servers, in turn, and checks they answer alike. */
async function same(pair: Pair, body: string, headers: Record<string, string> = {}): Promise<Raw> {
  const direct = await send(pair.direct, body, headers);
  const yoga = await send(pair.yoga, body, headers);
  expect({ status: direct.status, contentType: direct.contentType, body: direct.body }).toEqual({
    status: yoga.status,
    contentType: yoga.contentType,
    body: yoga.body,
  });
  return direct;
}

const op = (query: string, variables?: Record<string, unknown>) => JSON.stringify({ query, variables });

describe('plain JSON POSTs answered directly', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair({ corsOrigins: ['http://example.test'] });
  });
  afterAll(() => stopPair(pair));

  it('answers queries and mutations as Yoga does', async () => {
    const captured = await same(
      pair,
      op(
        'mutation ($c: String!) { capture(input: { content: $c, tags: ["Alpha"] }) { outcome entry { content tags } } }',
        {
          c: 'the deploy runs on fridays',
        },
      ),
    );
    expect(JSON.parse(captured.body)).toEqual({
      data: { capture: { outcome: 'STORED', entry: { content: 'the deploy runs on fridays', tags: ['alpha'] } } },
    });
    const counted = await same(pair, op('query Count { count }'), {
      accept: 'application/graphql-response+json, application/json',
    });
    expect(counted.contentType).toBe('application/graphql-response+json; charset=utf-8');
    expect(JSON.parse(counted.body)).toEqual({ data: { count: 1 } });
  });

  it('answers validation errors with the status each accepted media type calls for', async () => {
    const legacy = await same(pair, op('{ nope }'));
    expect(legacy.status).toBe(200);
    expect(JSON.parse(legacy.body).errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const modern = await same(pair, op('{ nope }'), { accept: 'application/graphql-response+json' });
    expect(modern.status).toBe(400);
    const syntax = await same(pair, op('{ count '), { accept: 'application/graphql-response+json' });
    expect(JSON.parse(syntax.body).errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('answers bad variables and resolver errors with the contract codes', async () => {
    const variables = await same(pair, op('query ($id: ID!) { entry(id: $id) { id } }', { id: { not: 'an id' } }));
    expect(JSON.parse(variables.body).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const empty = await same(pair, op('mutation { capture(input: { content: "" }) { outcome } }'));
    expect(JSON.parse(empty.body).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const missing = await same(pair, op('{ entry(id: "no-such-entry") { id } }'));
    expect(JSON.parse(missing.body)).toEqual({ data: { entry: null } });
  });

  it('picks an operation by name and rejects an unknown one alike', async () => {
    const doc = 'query A { count } query B { tags { tag } }';
    const a = await same(pair, JSON.stringify({ query: doc, operationName: 'A' }));
    expect(JSON.parse(a.body).data).toEqual({ count: 1 });
    const unknown = await same(pair, JSON.stringify({ query: doc, operationName: 'C' }));
    expect(JSON.parse(unknown.body).errors).toHaveLength(1);
  });

  it('leaves unusual requests to Yoga and still answers them alike', async () => {
    const invalidJson = await same(pair, '{"query": ');
    expect(invalidJson.status).toBe(400);
    await same(pair, JSON.stringify([{ query: '{ count }' }]));
    await same(pair, JSON.stringify({ query: '{ count }', extra: 1 }));
    await same(pair, JSON.stringify({ query: '{ count }', variables: [1] }));
    await same(pair, JSON.stringify({ query: 42 }));
    await same(pair, 'null');
    // A subscription over POST with only JSON acceptable: Yoga decides what to say.
    await same(pair, op('subscription { memoryEvents { type } }'));
  });

  it('leaves CORS requests to Yoga, which answers with its CORS headers', async () => {
    const res = await same(pair, op('{ count }'), { origin: 'http://example.test' });
    expect(res.headers.get('access-control-allow-origin')).toBeTruthy();
  });

  it('leaves server-sent event subscriptions to Yoga', async () => {
    const controller = new AbortController();
    const res = await fetch(pair.direct.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: op('subscription { memoryEvents { type } }'),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
  });
});

describe('plain JSON POSTs answered directly, with tokens and limits', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair({ authRequired: true, rateLimit: 1 });
  });
  afterAll(() => stopPair(pair));

  it('refuses a request without a token as Yoga does', async () => {
    const res = await same(pair, op('{ count }'));
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('answers a rate-limited mutation with 429 as Yoga does', async () => {
    const direct = await (await pair.direct.server.control()).createToken('limited', 'agent');
    const yoga = await (await pair.yoga.server.control()).createToken('limited', 'agent');
    const capture = op('mutation { capture(input: { content: "one note" }) { outcome } }');
    const results = [];
    for (const [server, token] of [
      [pair.direct, direct.token],
      [pair.yoga, yoga.token],
    ] as const) {
      const headers = { authorization: `Bearer ${token}` };
      results.push([await send(server, capture, headers), await send(server, capture, headers)]);
    }
    const [[directFirst, directSecond], [yogaFirst, yogaSecond]] = results as [[Raw, Raw], [Raw, Raw]];
    expect(directFirst.body).toBe(yogaFirst.body);
    expect(JSON.parse(directFirst.body).data.capture.outcome).toBe('STORED');
    expect([directSecond.status, directSecond.contentType]).toEqual([yogaSecond.status, yogaSecond.contentType]);
    expect(directSecond.status).toBe(429);
    expect(JSON.parse(directSecond.body).errors[0].extensions.code).toBe('RATE_LIMITED');
  });
});
