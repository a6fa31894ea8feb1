import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_GENERATED } from '../../client/codegen.ts';
import { DocumentSender } from '../../web/src/api.ts';
import * as documents from '../../web/src/documents.ts';
import {
  BriefDocument,
  CaptureDocument,
  type Document,
  EntryDetailDocument,
  LastEventSeqDocument,
  RecallExplainedDocument,
  RecentEntriesDocument,
} from '../../web/src/documents.ts';
import { type Browser, chromiumAvailable, launchBrowser } from './browser.ts';
import { type DashboardServer, startDashboardServer } from './dashboard-server.ts';

/** The client package's manifest, as an operator would set SPHERE_TRUSTED_DOCUMENTS. */
const CLIENT_MANIFEST = `${CLIENT_GENERATED}persisted-documents.json`;

let srv: DashboardServer;

beforeAll(async () => {
  // A development build: graphcache warns on the console when a result lacks what it needs (__typename).
  srv = await startDashboardServer({ trustedDocuments: CLIENT_MANIFEST }, { development: true });
}, 30_000);
afterAll(async () => {
  await srv?.close();
});

async function post(body: unknown, workspace: string) {
  const res = await fetch(`${srv.origin}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workspace': workspace },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { data?: Record<string, unknown>; errors?: { extensions?: { code?: string } }[] };
}

describe('the dashboard on a server that runs only the client package’s documents', () => {
  it('sends only documents the client’s manifest lists', async () => {
    const client: Record<string, string> = JSON.parse(await readFile(CLIENT_MANIFEST, 'utf8'));
    const dashboard = Object.values(documents as Record<string, unknown>).filter(
      (d): d is Document<unknown, unknown> => typeof d === 'object' && d !== null && 'hash' in d,
    );
    expect(dashboard.length).toBeGreaterThan(10);
    for (const doc of dashboard) expect(client[doc.hash], doc.name).toBe(doc.text);
  });

  it('runs the dashboard’s documents by hash over HTTP, and refuses their text', async () => {
    const ws = 'trusted-http';
    const sender = new DocumentSender();
    const asText = sender.params(CaptureDocument, { input: { content: 'sent as text' } });
    expect((await post(asText, ws)).errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ONLY');
    expect(sender.switchesToHash('PERSISTED_QUERY_ONLY')).toBe(true);

    const run = async <R, V>(document: Document<R, V>, variables: V): Promise<R> => {
      const res = await post(sender.params(document, variables), ws);
      expect(res.errors).toBeUndefined();
      return res.data as R;
    };
    const content = 'The tamarind ledger closes on Fridays.';
    const { capture } = await run(CaptureDocument, { input: { content, tags: ['ops'] } });
    const id = capture?.entry.id;
    const { recall } = await run(RecallExplainedDocument, { query: 'tamarind ledger' });
    expect(recall.hits[0]).toMatchObject({ entry: { id }, explain: { final: expect.any(Number) } });
    expect(await run(EntryDetailDocument, { id: id ?? '' })).toMatchObject({
      entry: { id, content, revisions: [], connections: [] },
    });
    expect((await run(BriefDocument, {})).brief.stats.entries).toBe(1);
    expect((await run(RecentEntriesDocument, { n: 5 })).recent.map((e) => e.id)).toEqual([id]);
    expect(await run(LastEventSeqDocument, {})).toEqual({
      __typename: 'Query',
      lastEventSeq: 1,
      stats: { __typename: 'Stats', workspace: ws },
    });
  });
});

describe.skipIf(!chromiumAvailable())('the dashboard on a trusted-documents server (chromium)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });

  async function open(route: string, workspace: string): Promise<Page> {
    const page = await browser.newPage();
    await page.addInitScript((ws) => localStorage.setItem('mini-sphere.workspace', ws), workspace);
    await page.goto(`${srv.origin}/${route}`);
    await page.locator('#connection[data-state="live"]').waitFor({ timeout: 10_000 });
    return page;
  }

  it('captures, shows the event live, recalls, and opens the entry and the stats', async () => {
    const ws = 'trusted-e2e';
    const [writer, watcher] = await Promise.all([open('#/capture', ws), open('#/feed', ws)]);
    await writer.getByLabel('Content').fill('The saffron release train leaves every second Tuesday.');
    await writer.getByRole('button', { name: 'Capture' }).click();
    await writer.locator('#capture-outcome [data-outcome="STORED"]').waitFor({ timeout: 5_000 });
    await watcher.locator('#feed-list li[data-type="CAPTURED"]', { hasText: 'saffron' }).waitFor({ timeout: 5_000 });

    await watcher.goto(`${srv.origin}/#/recall?q=saffron%20release`);
    const hit = watcher.locator('#recall-hits li.hit').first();
    await expect.poll(() => hit.locator('.snippet').textContent()).toContain('saffron');
    await hit.locator('.hit-head a.entry-link').click();
    await expect.poll(() => watcher.locator('#entry-content').textContent()).toContain('saffron release');

    await watcher.goto(`${srv.origin}/#/stats`);
    await expect.poll(() => watcher.locator('#stats-numbers').textContent()).toContain('1entries');
    // The one request each page sent as text before learning the server wants hashes is all that failed.
    const errors = [writer, watcher].flatMap((page) => browser.errorsOf(page));
    expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
    // The server ran the manifest's text, and the cache found in it all it needs.
    expect([writer, watcher].flatMap((page) => browser.warningsOf(page))).toEqual([]);
    await Promise.all([writer.close(), watcher.close()]);
  });
});
