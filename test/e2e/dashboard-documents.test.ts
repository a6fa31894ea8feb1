import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_GENERATED } from '../../client/codegen.ts';
import * as documents from '../../web/src/documents.ts';
import { CAPTURE, FORGET, LINK } from '../helpers/operations.ts';
import { type Browser, chromiumAvailable, launchBrowser } from './browser.ts';
import { type DashboardServer, startDashboardServer } from './dashboard-server.ts';

/**
 * The dashboard sends the client package's documents, exactly as the package ships them, and
 * every view works with them in Chromium, the live feed through link and forget events included.
 */

const DESKTOP = { width: 1366, height: 900 };

describe('the dashboard’s documents', () => {
  it('are the client package’s manifest entries, text and hash alike', async () => {
    const manifest: Record<string, string> = JSON.parse(
      await readFile(`${CLIENT_GENERATED}persisted-documents.json`, 'utf8'),
    );
    const sent = Object.values(documents as Record<string, unknown>).filter(
      (d): d is documents.Document<unknown, unknown> => typeof d === 'object' && d !== null && 'hash' in d,
    );
    expect(sent.length).toBeGreaterThanOrEqual(16);
    for (const doc of sent) expect(manifest[doc.hash], doc.name).toBe(doc.text);
  });

  it('finds operations at the top level only, not fields that share their keywords', () => {
    const text =
      'fragment F on Hit { query } query RecallExplained($query: String!) { recall(query: $query) { query queryUsed } }';
    expect(documents.operationNames(text)).toEqual(['RecallExplained']);
  });
});

describe.skipIf(!chromiumAvailable())('every view of the dashboard (chromium)', () => {
  let srv: DashboardServer;
  let browser: Browser;

  beforeAll(async () => {
    [srv, browser] = await Promise.all([startDashboardServer(), launchBrowser()]);
  });

  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  async function capture(workspace: string, input: Record<string, unknown>): Promise<string> {
    const data = await srv.gql<{ capture: { entry: { id: string } } }>(CAPTURE, { input }, workspace);
    return data.capture.entry.id;
  }

  async function open(route: string, workspace: string): Promise<Page> {
    const page = await browser.newPage(DESKTOP);
    await page.addInitScript((ws) => localStorage.setItem('mini-sphere.workspace', ws), workspace);
    await page.goto(`${srv.origin}/${route}`);
    await page.locator('#connection[data-state="live"]').waitFor({ timeout: 10_000 });
    return page;
  }

  it('uses every view, and the live feed shows link and forget events with the entries’ text', async () => {
    const ws = 'e2e-every-view';
    const decision = await capture(ws, { content: 'We chose Postgres for the billing ledger.', kind: 'EPISODIC' });
    const person = await capture(ws, { content: 'Mara Lindqvist runs the billing team.', kind: 'PERSON' });
    const page = await open('#/feed', ws);
    const feed = page.locator('#feed-list');
    await feed.locator('li[data-type="CAPTURED"]', { hasText: 'Mara Lindqvist' }).waitFor({ timeout: 5_000 });

    // Live: a link and a forget made elsewhere show up, named by the entries' text.
    await srv.gql(LINK, { input: { src: decision, dst: person, type: 'ABOUT_PERSON' } }, ws);
    const linked = feed.locator('li[data-type="LINKED"]');
    await linked.waitFor({ timeout: 5_000 });
    await expect.poll(() => linked.textContent()).toContain('We chose Postgres');
    expect(await linked.textContent()).toContain('Mara Lindqvist');
    await srv.gql(FORGET, { id: person }, ws);
    const forgotten = feed.locator('li[data-type="FORGOTTEN"]');
    await forgotten.waitFor({ timeout: 5_000 });
    expect(await forgotten.textContent()).toContain('Forgotten: Mara Lindqvist runs the billing team.');

    // Capture through the form.
    await page.getByRole('link', { name: 'Capture' }).click();
    await page.getByLabel('Content').fill('The billing ledger is backed up hourly.');
    await page.getByRole('button', { name: 'Capture', exact: true }).click();
    await page.locator('#capture-outcome [data-outcome="STORED"]').waitFor({ timeout: 5_000 });

    // Recall, then the entry page of a hit.
    await page.getByRole('link', { name: 'Recall' }).click();
    await page.getByLabel('Query').fill('billing ledger');
    await page.getByLabel('Query').press('Enter');
    const hit = page.locator('#recall-hits li.hit', { hasText: 'Postgres' });
    await hit.waitFor({ timeout: 5_000 });
    await hit.locator('.hit-head a.entry-link').click();
    await expect.poll(() => page.locator('#entry-content').textContent()).toContain('We chose Postgres');

    // The graph of that entry.
    await page.getByRole('link', { name: 'Show in graph' }).click();
    await expect
      .poll(() =>
        page.evaluate(() => (window as unknown as { __cy?: { nodes(): { length: number } } }).__cy?.nodes().length),
      )
      .toBeGreaterThan(0);

    // Stats and brief.
    await page.getByRole('link', { name: 'Stats' }).click();
    await page.locator('#stats-numbers').waitFor({ timeout: 5_000 });
    await expect.poll(() => page.locator('#brief-title').count()).toBe(1);

    expect(browser.errorsOf(page)).toEqual([]);
    await page.close();
  });
});
