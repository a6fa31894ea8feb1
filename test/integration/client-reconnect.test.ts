import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createSphereClient, type SphereEvent } from '../../client/src/index.ts';
import { loadConfig } from '../../src/config.ts';
import { buildServer, type MiniSphereServer } from '../../src/server/server.ts';
import { freshWorkspace, startTestServer } from '../helpers/server.ts';

// graphql-ws gives up after 10 retries by default (about 46 s with the client's waits); the typed client must
// outlast any outage, so this one is longer than that budget with room to spare.
const DOWNTIME_MS = 95_000;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('the typed client across a long outage', () => {
  it('keeps every subscription through 95 s of downtime and sees each later event once', async () => {
    const t = await startTestServer();
    cleanups.push(() => rm(t.dataDir, { recursive: true, force: true }));
    const port = Number(new URL(t.url).port);
    const workspace = freshWorkspace('outage');
    const sphere = createSphereClient({ url: t.url, workspace, webSocketImpl: WebSocket });
    cleanups.push(() => sphere.close());

    const all: SphereEvent[] = [];
    const links: SphereEvent[] = [];
    const errors: unknown[] = [];
    sphere.subscribe((e) => all.push(e), { sinceSeq: 0, onError: (e) => errors.push(e) });
    sphere.subscribe((e) => links.push(e), { sinceSeq: 0, types: ['LINKED'], onError: (e) => errors.push(e) });
    const a = await sphere.capture({ content: 'before the outage' });
    const b = await sphere.capture({ content: 'also before the outage' });
    await sphere.link({ src: a.entry.id, dst: b.entry.id, type: 'CAUSED_BY' });
    await until(() => all.length === 3 && links.length === 1);

    await t.server.stop();
    await new Promise((resolve) => setTimeout(resolve, DOWNTIME_MS));
    const config = loadConfig({}, { port, host: '127.0.0.1', dataDir: t.dataDir, logLevel: 'silent' });
    const next: MiniSphereServer = buildServer(config);
    await next.start();
    cleanups.push(() => next.stop());

    const later: string[] = [];
    for (let i = 0; i < 10; i += 1) later.push((await sphere.capture({ content: `after the outage ${i}` })).entry.id);
    await sphere.link({ src: later[0]!, dst: later[1]!, type: 'CAUSED_BY' });
    // A client that gave up says so through onError; that ends the wait as a failure rather than a timeout.
    await until(() => (all.length === 14 && links.length === 2) || errors.length > 0);
    // Anything repeated or late would show up in this pause.
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(errors).toEqual([]);
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
    expect(all.slice(3, 13).map((e) => e.entryId)).toEqual(later);
    expect(links.map((e) => e.seq)).toEqual([3, 14]);
  });
});
