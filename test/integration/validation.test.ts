import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE, captureId, LINK, RECALL } from '../helpers/operations.ts';
import { freshWorkspace, type GqlResponse, startTestServer, type TestServer } from '../helpers/server.ts';
import { dumpWorkspace } from '../helpers/workspace-db.ts';

let srv: TestServer;
let ws: string;
let a: string;
let b: string;
beforeAll(async () => {
  srv = await startTestServer();
  ws = freshWorkspace('valid');
  const cap = (content: string) => captureId(srv, { content, tags: ['seed'] }, { workspace: ws });
  a = await cap('validation seed one');
  b = await cap('validation seed two');
  await srv.gqlOk(LINK, { input: { src: a, dst: b, type: 'RELATES_TO' } }, { workspace: ws });
});
afterAll(async () => {
  await srv?.stop();
});

/** A line of a JavaScript stack trace, or a source location in one. */
const STACK_LINE = /\n\s+at \S|\bat \S+ \(|\.(?:ts|js|mjs|cjs):\d+:\d+/;

/** Soft assertions, so that one run lists every case that misbehaves. */
function expectSafeError(res: GqlResponse, code: string, label: string) {
  expect.soft(res.status, label).toBeLessThan(500);
  expect.soft(res.errors?.length, label).toBeGreaterThan(0);
  expect.soft(res.errors?.[0]?.extensions?.code, `${label}: ${JSON.stringify(res.errors)}`).toBe(code);
  const text = JSON.stringify(res.errors);
  expect.soft(text, label).not.toMatch(STACK_LINE);
  expect.soft(text, label).not.toMatch(/stack|originalError|SQLITE|drizzle/i);
  expect.soft(res.data?.capture ?? res.data?.link ?? null, label).toBeNull();
}

interface Case {
  label: string;
  query: string;
  variables?: Record<string, unknown>;
  code?: string;
}

const tooLong = 'x'.repeat(100_001);
/** `{ "a": { "a": … } }`, `depth` objects deep. */
const nested = (depth: number) => {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
};
const tags33 = Array.from({ length: 33 }, (_, i) => `t${i}`);

function cases(): Case[] {
  const capture = (label: string, input: Record<string, unknown>): Case => ({
    label,
    query: CAPTURE,
    variables: { input: { content: 'valid content', ...input } },
  });
  const link = (label: string, input: Record<string, unknown>): Case => ({
    label,
    query: LINK,
    variables: { input: { src: a, dst: b, type: 'CAUSED_BY', ...input } },
  });
  return [
    capture('empty content', { content: '' }),
    capture('whitespace-only content', { content: ' \n\t \u00a0 ' }),
    capture('content of 100,001 characters', { content: tooLong }),
    capture('33 tags', { tags: tags33 }),
    capture('a 65-character tag', { tags: ['ok', 'y'.repeat(65)] }),
    capture('an empty tag', { tags: ['  '] }),
    // U+0000 would be stored whole but read back cut short at it.
    capture('content with U+0000', { content: 'before\u0000after' }),
    capture('a tag with U+0000', { tags: ['a\u0000b'] }),
    capture('source with U+0000', { source: 'src\u0000' }),
    capture('evidenceRef with U+0000', { evidenceRef: '\u0000ref' }),
    capture('importance -0.1', { importance: -0.1 }),
    capture('importance 1.1', { importance: 1.1 }),
    capture('observedAt not a date (variable)', { observedAt: 'yesterday' }),
    capture('observedAt month 13 (variable)', { observedAt: '2026-13-01T00:00:00Z' }),
    capture('observedAt without a zone (variable)', { observedAt: 'not-a-date-2026' }),
    {
      label: 'observedAt not a date (literal)',
      query: 'mutation { capture(input: { content: "valid content", observedAt: "31/12/2026" }) { outcome } }',
    },
    {
      label: 'invalid enum (literal)',
      query: 'mutation { capture(input: { content: "valid content", kind: NOT_A_KIND }) { outcome } }',
      code: 'GRAPHQL_VALIDATION_FAILED',
    },
    {
      label: 'enum given as a string literal',
      query: 'mutation { capture(input: { content: "valid content", kind: "SEMANTIC" }) { outcome } }',
      code: 'GRAPHQL_VALIDATION_FAILED',
    },
    link('weight 0', { weight: 0 }),
    link('weight 1.5', { weight: 1.5 }),
    link('weight -0.5', { weight: -0.5 }),
    link('metadata nested 65 deep', { metadata: nested(65) }),
    link('metadata nested 1,000 deep', { metadata: nested(1_000) }),
    link('metadata in arrays 1,000 deep', { metadata: { a: JSON.parse(`${'['.repeat(1_000)}${']'.repeat(1_000)}`) } }),
    link('self-link', { dst: a }),
    link('self-link RELATES_TO', { dst: a, type: 'RELATES_TO' }),
    {
      label: 'append empty addition',
      query: 'mutation ($id: ID!) { append(input: { id: $id, addition: "   " }) { entry { id } } }',
      variables: { id: a },
    },
    {
      label: 'append over the content limit',
      query: 'mutation ($id: ID!, $x: String!) { append(input: { id: $id, addition: $x }) { entry { id } } }',
      variables: { id: a, x: 'z'.repeat(99_990) },
    },
    {
      label: 'append an addition with U+0000',
      query: 'mutation ($id: ID!, $x: String!) { append(input: { id: $id, addition: $x }) { entry { id } } }',
      variables: { id: a, x: 'more\u0000' },
    },
    {
      label: 'update to content with U+0000',
      query: 'mutation ($id: ID!, $c: String!) { update(input: { id: $id, content: $c }) { entry { id } } }',
      variables: { id: a, c: 'new\u0000content' },
    },
    {
      label: 'update to empty content',
      query: 'mutation ($id: ID!) { update(input: { id: $id, content: "" }) { entry { id } } }',
      variables: { id: a },
    },
    {
      label: 'update to 100,001 characters',
      query: 'mutation ($id: ID!, $c: String!) { update(input: { id: $id, content: $c }) { entry { id } } }',
      variables: { id: a, c: tooLong },
    },
    { label: 'topK 0', query: RECALL, variables: { q: 'seed', topK: 0 } },
    { label: 'topK 51', query: RECALL, variables: { q: 'seed', topK: 51 } },
    { label: 'recall hops -1', query: RECALL, variables: { q: 'seed', hops: -1 } },
    { label: 'recall hops 4', query: RECALL, variables: { q: 'seed', hops: 4 } },
    { label: 'query of 0 characters', query: RECALL, variables: { q: '' } },
    { label: 'query of 1,001 characters', query: RECALL, variables: { q: 'w'.repeat(1001) } },
    {
      label: 'recall asOf not a date (literal)',
      query: '{ recall(query: "seed", asOf: "last tuesday") { hits { rank } } }',
    },
    {
      label: 'recall asOf not a date (variable)',
      query: 'query ($t: DateTime) { recall(query: "seed", asOf: $t) { hits { rank } } }',
      variables: { t: '2026-03-04' },
    },
    {
      label: 'recall filter of 33 tags',
      query: 'query ($f: RecallFilter) { recall(query: "seed", filter: $f) { hits { rank } } }',
      variables: { f: { tags: tags33 } },
    },
    {
      label: 'recall filter of 1,000 tags',
      query: 'query ($f: RecallFilter) { recall(query: "seed", filter: $f) { hits { rank } } }',
      variables: { f: { tags: Array.from({ length: 1000 }, (_, i) => `t${i}`) } },
    },
    {
      label: 'entries filter of 1,000 tags',
      query: 'query ($f: EntryFilter) { entries(first: 5, filter: $f) { totalCount } }',
      variables: { f: { tags: Array.from({ length: 1000 }, (_, i) => `t${i}`) } },
    },
    {
      label: 'recall filter since not a date (variable)',
      query: 'query ($f: RecallFilter) { recall(query: "seed", filter: $f) { hits { rank } } }',
      variables: { f: { since: 12345 } },
    },
    {
      label: 'graphView hops -1',
      query: 'query ($id: ID!) { graphView(seedIds: [$id], hops: -1) { truncated } }',
      variables: { id: a },
    },
    {
      label: 'graphView hops 4',
      query: 'query ($id: ID!) { graphView(seedIds: [$id], hops: 4) { truncated } }',
      variables: { id: a },
    },
    { label: 'recent n 0', query: '{ recent(n: 0) { id } }' },
    { label: 'recent n 201', query: '{ recent(n: 201) { id } }' },
    { label: 'eventLog limit 0', query: '{ eventLog(limit: 0) { seq } }' },
    { label: 'eventLog limit 1001', query: '{ eventLog(limit: 1001) { seq } }' },
    {
      label: 'Int literal given a string',
      query: '{ recent(n: "ten") { id } }',
      code: 'GRAPHQL_VALIDATION_FAILED',
    },
  ];
}

/** Values graphql-js itself rejects while coercing variables (CONTRACT §8: BAD_USER_INPUT). */
function variableCases(): Case[] {
  const capture = (label: string, input: Record<string, unknown>): Case => ({
    label,
    query: CAPTURE,
    variables: { input: { content: 'valid content', ...input } },
  });
  return [
    capture('invalid enum (variable)', { kind: 'NOT_A_KIND' }),
    capture('invalid status (variable)', { status: 'active' }),
    {
      label: 'invalid edge type (variable)',
      query: LINK,
      variables: { input: { src: a, dst: b, type: 'LIKES' } },
    },
    {
      label: 'Int variable given a string',
      query: 'query ($n: Int) { recent(n: $n) { id } }',
      variables: { n: 'ten' },
    },
    { label: 'missing required input field', query: CAPTURE, variables: { input: { tags: ['x'] } } },
    { label: 'missing required variable', query: CAPTURE, variables: {} },
  ];
}

/** Calendar dates that do not exist: JavaScript's Date rolls them over silently. */
function impossibleDateCases(): Case[] {
  return ['2026-02-30T00:00:00Z', '2025-02-29T12:00:00Z', '2026-04-31T00:00:00.000Z'].flatMap((t) => [
    {
      label: `observedAt ${t} (variable)`,
      query: CAPTURE,
      variables: { input: { content: 'valid content', observedAt: t } },
    },
    {
      label: `observedAt ${t} (literal)`,
      query: `mutation { capture(input: { content: "valid content", observedAt: "${t}" }) { outcome } }`,
    },
    {
      label: `recall asOf ${t} (variable)`,
      query: 'query ($t: DateTime) { recall(query: "seed", asOf: $t) { hits { rank } } }',
      variables: { t },
    },
  ]);
}

async function expectAllRejected(list: Case[], workspace = ws) {
  const path = srv.dbPath(workspace);
  const before = await dumpWorkspace(path);
  expect(before.entries.length).toBeGreaterThan(0);
  for (const c of list) {
    const res = await srv.gql(c.query, c.variables, { workspace });
    expectSafeError(res, c.code ?? 'BAD_USER_INPUT', c.label);
    expect.soft(await dumpWorkspace(path), c.label).toEqual(before);
  }
}

describe('bad input (CONTRACT §8)', () => {
  it('every validation error returns its code and leaves the database exactly as it was', async () => {
    await expectAllRejected(cases());
  });

  it('bad variable values (enum, Int, missing fields) are BAD_USER_INPUT', async () => {
    await expectAllRejected(variableCases());
  });

  it('a DateTime naming a day that does not exist is a bad date (BAD_USER_INPUT)', async () => {
    // Its own workspace: an accepted case writes, and must not disturb the other tests.
    const w = freshWorkspace('valid');
    await srv.gqlOk(CAPTURE, { input: { content: 'validation seed one' } }, { workspace: w });
    await expectAllRejected(impossibleDateCases(), w);
  });

  it('the limits themselves are accepted (100,000 characters, 32 tags, 64-character tags, weight 1, importance 0 and 1)', async () => {
    const w = freshWorkspace('valid');
    const cap = (input: Record<string, unknown>) => srv.gql(CAPTURE, { input }, { workspace: w });
    const big = await cap({ content: `${'y'.repeat(99_999)}!` });
    expect(big.errors).toBeUndefined();
    const many = await cap({
      content: 'many tags',
      tags: Array.from({ length: 32 }, (_, i) => `${'t'.repeat(62)}${String(i).padStart(2, '0')}`),
      importance: 0,
    });
    expect(many.errors).toBeUndefined();
    const one = await cap({ content: 'importance one', importance: 1, observedAt: '2026-03-04T10:00:00+02:00' });
    expect(one.errors).toBeUndefined();
    const when = await srv.gqlOk(
      'query ($id: ID!) { entry(id: $id) { observedAt importance } }',
      { id: one.data?.capture.entry.id },
      { workspace: w },
    );
    expect(when.entry).toEqual({ observedAt: '2026-03-04T08:00:00.000Z', importance: 1 });
    const link = await srv.gql(
      LINK,
      { input: { src: many.data?.capture.entry.id, dst: one.data?.capture.entry.id, type: 'CAUSED_BY', weight: 1 } },
      { workspace: w },
    );
    expect(link.errors).toBeUndefined();
    for (const q of [
      '{ recent(n: 1) { id } }',
      '{ recent(n: 200) { id } }',
      '{ eventLog(limit: 1) { seq } }',
      '{ eventLog(limit: 1000) { seq } }',
      `{ recall(query: "${'w'.repeat(1000)}", topK: 50, hops: 3) { hits { rank } } }`,
      '{ recall(query: "x", topK: 1, hops: 0) { hits { rank } } }',
    ]) {
      const res = await srv.gql(q, undefined, { workspace: w });
      expect(res.errors, q.slice(0, 60)).toBeUndefined();
    }
  });

  it('refuses JSON metadata nested thousands deep with BAD_USER_INPUT, as sent on the wire', async () => {
    // Built as text: JSON.stringify itself runs out of stack on such values.
    for (const [open, close] of [
      ['{"a":', '}'],
      ['[', ']'],
    ] as const) {
      const deep = `{"x":${open.repeat(5_000)}1${close.repeat(5_000)}}`;
      const body = `{"query":${JSON.stringify(LINK)},"variables":{"input":{"src":"${a}","dst":"${b}","type":"CAUSED_BY","metadata":${deep}}}}`;
      const res = await fetch(srv.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-workspace': ws },
        body,
      });
      const json = (await res.json()) as GqlResponse;
      expectSafeError({ ...json, status: res.status }, 'BAD_USER_INPUT', `metadata ${open}…`);
    }
    const edges = await srv.gqlOk(
      'query ($id: ID!) { entry(id: $id) { connections { edge { type } } } }',
      { id: a },
      { workspace: ws },
    );
    expect(edges.entry.connections).toEqual([{ edge: { type: 'RELATES_TO' } }]);
  });

  it('malformed documents and bodies are client errors, never 500s or stack traces', async () => {
    const parse = await srv.gql('{ recent(n: 1) { id }', undefined, { workspace: ws });
    expectSafeError(parse, 'GRAPHQL_PARSE_FAILED', 'parse error');
    const unknownField = await srv.gql('{ nope }', undefined, { workspace: ws });
    expectSafeError(unknownField, 'GRAPHQL_VALIDATION_FAILED', 'unknown field');
    const res = await fetch(srv.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-workspace': ws },
      body: '{"query": ',
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await res.text()).not.toMatch(STACK_LINE);
  });
});
