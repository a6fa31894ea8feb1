import { type AuditResult, serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// The GraphQL-over-HTTP conformance audits of graphql-http, run against a real server: every MUST and
// SHOULD audit has to pass; MAY audits are optional and only reported.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.stop();
});

async function audit(fetchFn?: typeof fetch): Promise<AuditResult[]> {
  const results: AuditResult[] = [];
  // One at a time: the audits share one server and their order makes failures easy to read.
  for (const { fn } of serverAudits({ url: server.url, fetchFn })) results.push(await fn());
  return results;
}

const level = (result: AuditResult) => result.name.split(' ', 1)[0];
const describeResult = (r: AuditResult) =>
  r.status === 'ok' ? `${r.id} ok` : `${r.id} ${r.status}: ${r.name} (${r.reason})`;

/** Fails on every MUST or SHOULD audit that is not ok, and logs how the MAY audits went. */
function expectConformance(results: AuditResult[], label: string): void {
  const required = results.filter((r) => level(r) === 'MUST' || level(r) === 'SHOULD');
  expect(required.filter((r) => level(r) === 'MUST').length).toBeGreaterThan(0);
  expect(required.filter((r) => level(r) === 'SHOULD').length).toBeGreaterThan(0);
  expect(required.filter((r) => r.status !== 'ok').map(describeResult)).toEqual([]);

  const optional = results.filter((r) => level(r) === 'MAY');
  const missed = optional.filter((r) => r.status !== 'ok');
  console.log(
    `graphql-http audits (${label}): ${required.length} MUST/SHOULD ok; ` +
      `MAY ${optional.length - missed.length}/${optional.length} ok` +
      missed.map((r) => `\n  ${describeResult(r)}`).join(''),
  );
}

describe('GraphQL over HTTP (graphql-http server audits)', () => {
  it('passes every MUST and SHOULD audit for a client that sends no extra headers', async () => {
    expectConformance(await audit(), 'plain fetch');
  });

  it('passes every MUST and SHOULD audit, and the GET ones, with the CSRF header set', async () => {
    // CSRF prevention refuses GETs that carry none of x-graphql-yoga-csrf, x-workspace or authorization,
    // since a page of another site can make a browser send such a GET. A non-browser client adds the header
    // as a matter of course; the audits test the GraphQL-over-HTTP protocol, not CSRF, so adding it here
    // lets them reach the GET handling behind that rule. Nothing else about the requests changes.
    const withCsrfHeader: typeof fetch = (input, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('x-graphql-yoga-csrf', '1');
      return fetch(input, { ...init, headers });
    };
    const results = await audit(withCsrfHeader);
    expectConformance(results, 'with x-graphql-yoga-csrf');
    const gets = results.filter((r) => /\bGETs?\b/.test(r.name));
    expect(gets.length).toBeGreaterThan(0);
    expect(gets.filter((r) => r.status !== 'ok').map(describeResult)).toEqual([]);
  });

  it('passes all 61 audits, MAY ones included, for a client that names its workspace', async () => {
    // What the package's client and the dashboard send: x-workspace on every request, which also satisfies CSRF
    // prevention for GETs.
    const withWorkspace: typeof fetch = (input, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('x-workspace', 'audit');
      return fetch(input, { ...init, headers });
    };
    const results = await audit(withWorkspace);
    expect(results.filter((r) => r.status !== 'ok').map(describeResult)).toEqual([]);
    expect(results).toHaveLength(61);
  });
});

describe('HTTP statuses of refused requests (GraphQL over HTTP)', () => {
  const post = async (accept: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, ...headers },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as {
      data?: unknown;
      errors?: { message: string; extensions?: { code?: string } }[];
    };
    return { status: res.status, type: res.headers.get('content-type'), ...json };
  };
  const badWorkspace = { 'x-workspace': 'Bad Workspace!' };
  const coercion = { query: 'query($n: Int) { recent(n: $n) { id } }', variables: { n: 'x' } };

  it('answers application/graphql-response+json request errors with 400, an error and its code', async () => {
    const accept = 'application/graphql-response+json';
    const workspace = await post(accept, { query: '{ lastEventSeq }' }, badWorkspace);
    expect(workspace.status).toBe(400);
    expect(workspace.type).toContain(accept);
    expect(workspace).not.toHaveProperty('data');
    expect(workspace.errors?.[0]?.message).toContain('invalid workspace id');
    expect(workspace.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'workspace' });
    const variables = await post(accept, coercion);
    expect(variables.status).toBe(400);
    expect(variables.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect((await post(accept, { query: '{ nope }' })).status).toBe(400);
    expect((await post(accept, { query: '{ lastEventSeq }' })).status).toBe(200);
  });

  it('answers application/json with 200 for every well-formed request, errors and codes in the body', async () => {
    const accept = 'application/json';
    const workspace = await post(accept, { query: '{ lastEventSeq }' }, badWorkspace);
    expect(workspace.status).toBe(200);
    expect(workspace.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const variables = await post(accept, coercion);
    expect(variables.status).toBe(200);
    expect(variables.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect((await post(accept, { query: '{ nope }' })).status).toBe(200);
  });
});
