import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { budget } from '../helpers/budget.ts';
import { runCli } from '../helpers/cli.ts';
import { type ServerProcess, spawnServer } from '../helpers/process.ts';

/**
 * Nothing is parsed, validated or costed for a caller who is not yet known, and what is
 * costed for one who is costs time linear in the document. A real server process, so the
 * loop measured is the server's alone.
 */

let chains = 0;
/**
 * `fragment F0 on Query { ...F1 ...F1 } …`, `depth` deep: 2^depth paths through 4.5 KB at
 * 120. Each call names its fragments afresh, as an attacker would, so no document cache
 * holds an earlier answer.
 */
function fragmentChain(depth: number): string {
  const f = `F${++chains}_`;
  let doc = `query Chain { ...${f}0 }\n`;
  for (let i = 0; i < depth; i++) doc += `fragment ${f}${i} on Query { ...${f}${i + 1} ...${f}${i + 1} }\n`;
  return `${doc}fragment ${f}${depth} on Query { count }\n`;
}

let server: ServerProcess;
let dataDir: string;
let token: string;
let origin: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mini-sphere-unknown-'));
  const created = await runCli(['token', 'create', '--workspace', 'w', '--role', 'reader'], {
    SPHERE_DATA_DIR: dataDir,
  });
  expect(created.code, created.stderr).toBe(0);
  token = created.stdout.trim().split('\n').at(-1) ?? '';
  server = await spawnServer({ SPHERE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  server?.proc.kill('SIGTERM');
  await server?.exited;
  await rm(dataDir, { recursive: true, force: true });
});

async function post(body: string, headers: Record<string, string> = {}) {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body,
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/**
 * Sends `attack`, and /health a few times while it is in flight: the slowest /health answer.
 * The best of three rounds is kept, so a busy test machine does not fail it, while a server
 * that holds its loop for seconds fails every round.
 */
async function healthDuring(attack: () => Promise<unknown>): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const inFlight = attack();
    await new Promise((r) => setTimeout(r, 20));
    let worst = 0;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expect((await fetch(`${origin}/health`)).status).toBe(200);
      worst = Math.max(worst, performance.now() - started);
    }
    await inFlight;
    best = Math.min(best, worst);
  }
  return best;
}

describe('a caller without a token', () => {
  it('is refused 401 before a 120-deep fragment chain is parsed, and /health never waits', async () => {
    const doc = () => JSON.stringify({ query: fragmentChain(120) });
    const refused = await post(doc());
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    const worst = await healthDuring(() => post(doc()));
    console.log(`/health while a 120-deep fragment chain is refused: worst ${worst.toFixed(1)} ms`);
    expect(worst).toBeLessThan(budget(100));
  });

  it('learns nothing of the schema: an unknown field and a real one are answered alike', async () => {
    const secret = await post(JSON.stringify({ query: '{ secretField }' }));
    const real = await post(JSON.stringify({ query: '{ count }' }));
    expect(secret.status).toBe(401);
    expect({ status: secret.status, body: secret.text }).toEqual({ status: real.status, body: real.text });
    // Over GET and as server-sent events alike.
    for (const accept of ['application/json', 'text/event-stream']) {
      const get = await fetch(`${server.url}?query=${encodeURIComponent('{ secretField }')}`, { headers: { accept } });
      expect(get.status).toBe(401);
      expect(await get.text()).toBe(real.text);
    }
    // Malformed JSON, too, is nobody's business but a known caller's.
    expect((await post('{"query": "{ count }"')).text).toBe(real.text);
  });

  it('gets nothing parsed on any other path either: one that ends in /graphql is 404 whatever it holds', async () => {
    // Yoga takes any path ending in /graphql for its endpoint; the server never hands it one.
    const origin = new URL(server.url).origin;
    for (const path of ['/graphql/graphql', '/x/graphql', '/graphql/']) {
      const answers = [];
      for (const query of ['{ secretField }', '{ count }', fragmentChain(120)]) {
        const res = await fetch(`${origin}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        });
        answers.push({ status: res.status, text: await res.text() });
      }
      expect(answers[0]!.status, path).toBe(404);
      expect(JSON.parse(answers[0]!.text).errors[0].extensions.code).toBe('NOT_FOUND');
      expect(answers[1], path).toEqual(answers[0]);
      expect(answers[2], path).toEqual(answers[0]);
    }
  });

  it('is closed 4403 over WebSocket before any operation is read', async () => {
    const socket = new WebSocket(server.wsUrl, 'graphql-transport-ws');
    await new Promise((r) => socket.once('open', r));
    const closed = new Promise<number>((r) => socket.once('close', (code) => r(code)));
    socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
    expect(await closed).toBe(4403);
  });
});

describe('a caller with a token', () => {
  it('has a 120-deep fragment chain costed in linear time and refused, and /health never waits', async () => {
    const doc = () => JSON.stringify({ query: fragmentChain(120) });
    const auth = { authorization: `Bearer ${token}` };
    const refused = await post(doc(), auth);
    expect(refused.status).toBe(400);
    const errors = JSON.parse(refused.text).errors as { message: string; extensions: { code: string } }[];
    expect(errors.map((e) => e.extensions.code)).toContain('GRAPHQL_VALIDATION_FAILED');
    expect(errors.map((e) => e.message).join(' ')).toMatch(/cost limit|depth limit/);
    const worst = await healthDuring(() => post(doc(), auth));
    console.log(`/health while a 120-deep fragment chain is costed: worst ${worst.toFixed(1)} ms`);
    expect(worst).toBeLessThan(budget(100));
  });

  it('has a body nested 400,000 deep refused before it is parsed, over HTTP and WebSocket', async () => {
    const n = 400_000;
    const deep = `${'['.repeat(n)}${']'.repeat(n)}`;
    const nested = `{"query":"{ count }","variables":{"x":${deep}}}`;
    const auth = { authorization: `Bearer ${token}` };
    const res = await post(nested, auth);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const worst = await healthDuring(() => post(nested, auth));
    console.log(`/health while a deeply nested body is refused: worst ${worst.toFixed(1)} ms`);
    expect(worst).toBeLessThan(budget(100));

    const socket = new WebSocket(server.wsUrl, 'graphql-transport-ws');
    await new Promise((r) => socket.once('open', r));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }));
    await new Promise((r) => socket.once('message', r));
    const closed = new Promise<number>((r) => socket.once('close', (code) => r(code)));
    socket.send(`{"id":"1","type":"subscribe","payload":{"query":"{ count }","variables":{"x":${deep}}}}`);
    expect(await closed).toBe(4400);
  });

  it('reads bodies as sent: a compressed one is refused with its reason, not handed to a parser', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const plain = JSON.stringify({ query: '{ count }' });
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', ...auth },
      body: gzipSync(plain),
    });
    expect(res.status).toBe(415);
    const body = (await res.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0]!.extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0]!.message).toMatch(/Content-Encoding/);
    // `identity` is no encoding at all.
    const identity = await post(plain, { ...auth, 'content-encoding': 'identity' });
    expect(identity.status).toBe(200);
    expect(JSON.parse(identity.text)).toEqual({ data: { count: 0 } });
  });
});
