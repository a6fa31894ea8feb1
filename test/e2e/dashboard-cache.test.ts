import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationNames } from '../../web/src/documents.ts';
import { CAPTURE, FORGET, LINK } from '../helpers/operations.ts';
import { type Browser, chromiumAvailable, launchBrowser } from './browser.ts';
import { type DashboardServer, startDashboardServer } from './dashboard-server.ts';

/**
 * The dashboard on the client package's urql cache, in Chromium, built with the libraries'
 * development checks: every view used, writes shown from the cache, the live feed through a
 * LINKED and a FORGOTTEN event, and not one console error or warning (graphcache warns there
 * about a key it cannot find or a field a result lacks).
 */

const DESKTOP = { width: 1366, height: 900 };
/** Generous: a busy two-core machine runs Chromium slowly. */
const SHOWN = { timeout: 30_000 };

const TOPICS = [
  'apricot orchard irrigation',
  'basalt quarry permits',
  'cedar roof shingles',
  'dolphin sonar tags',
  'elm disease survey',
  'falcon nesting ledge',
  'granite countertop supplier',
  'harbour crane schedule',
  'iris bulb storage',
  'juniper hedge trimming',
  'kelp farm licence',
  'lantern festival budget',
  'marble staircase repair',
  'nectarine grafting trial',
  'oyster bed salinity',
  'pewter mug engraving',
  'quartz watch servicing',
  'reindeer feed order',
  'saffron harvest crew',
  'tulip export paperwork',
  'umber paint pigments',
  'violin bow rehair',
  'walnut veneer glue',
  'xylophone mallet order',
  'yak wool spinning',
  'zinc gutter replacement',
  'acorn squash seedlings',
  'bramble path clearing',
];

describe.skipIf(!chromiumAvailable())('the dashboard on the client package’s cache (chromium)', () => {
  let srv: DashboardServer;
  let browser: Browser;

  beforeAll(async () => {
    [srv, browser] = await Promise.all([startDashboardServer({}, { development: true }), launchBrowser()]);
  });

  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  async function capture(workspace: string, input: Record<string, unknown>): Promise<string> {
    const data = await srv.gql<{ capture: { outcome: string; entry: { id: string } } }>(CAPTURE, { input }, workspace);
    expect(data.capture.outcome).toBe('STORED');
    return data.capture.entry.id;
  }

  /** The operation names of the GraphQL requests a page sends over HTTP, in order. */
  function recordOperations(page: Page): string[] {
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'POST' || !request.url().endsWith('/graphql')) return;
      const body = JSON.parse(request.postData() ?? '{}') as { operationName?: string; query?: string };
      sent.push(body.operationName ?? operationNames(body.query ?? '')[0] ?? '?');
    });
    return sent;
  }

  const count = (sent: string[], name: string) => sent.filter((n) => n === name).length;

  it('uses every view, shows writes from the cache, follows a link and a forget live, and warns of nothing', async () => {
    const ws = 'e2e-cache';
    for (const [i, topic] of TOPICS.entries()) {
      await capture(ws, { content: `Note ${i + 1} on the ${topic}.` });
    }
    const decision = await capture(ws, { content: 'We keep the billing ledger in Postgres.', kind: 'EPISODIC' });
    const runbook = await capture(ws, { content: 'The Postgres failover runbook, step by step.', kind: 'DOCUMENT' });

    const page = await browser.newPage(DESKTOP);
    const sent = recordOperations(page);
    await page.addInitScript((name) => localStorage.setItem('mini-sphere.workspace', name), ws);
    await page.goto(`${srv.origin}/#/feed`);
    await page.locator('#connection[data-state="live"]').waitFor(SHOWN);
    const feed = page.locator('#feed-list');
    await feed.locator('li[data-type="CAPTURED"]', { hasText: 'failover runbook' }).waitFor(SHOWN);

    // Capture through the form.
    await page.getByRole('link', { name: 'Capture' }).click();
    await page.getByLabel('Content').fill('The billing ledger is backed up every hour.');
    await page.getByRole('button', { name: 'Capture', exact: true }).click();
    await page.locator('#capture-outcome [data-outcome="STORED"]').waitFor(SHOWN);

    // The entries table, two pages of 25; going back to the first comes from the cache, not the server.
    await page.goto(`${srv.origin}/#/entries?size=25`);
    const summary = page.locator('#entries-summary');
    await expect.poll(() => summary.textContent(), SHOWN).toBe('Entries 1–25 of 31.');
    const firstRows = await page
      .locator('#entries-table tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-entry-id')));
    expect(firstRows).toHaveLength(25);
    await page.locator('#entries-next').click();
    await expect.poll(() => summary.textContent(), SHOWN).toBe('Entries 26–31 of 31.');
    const entriesRead = count(sent, 'Entries');
    await page.locator('#entries-prev').click();
    await expect.poll(() => summary.textContent(), SHOWN).toBe('Entries 1–25 of 31.');
    expect(
      await page
        .locator('#entries-table tbody tr')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-entry-id'))),
    ).toEqual(firstRows);
    expect(count(sent, 'Entries'), 'the page seen before is read from the cache').toBe(entriesRead);

    // The entry page: append, rewrite, status, link and unlink, each shown once the cache has it.
    await page.goto(`${srv.origin}/#/entry/${decision}`);
    const content = page.locator('#entry-content');
    await expect.poll(() => content.textContent(), SHOWN).toContain('billing ledger in Postgres');
    await page.getByLabel('Text to add').fill('Reviewed by the finance team.');
    await page.getByRole('button', { name: 'Append', exact: true }).click();
    await page.locator('#append-message', { hasText: 'Appended.' }).waitFor(SHOWN);
    await expect.poll(() => content.textContent(), SHOWN).toContain('Reviewed by the finance team.');
    await page.locator('#revisions li[data-op="APPEND"]').waitFor(SHOWN);

    await page.getByLabel('New content').fill('We keep the billing ledger in Postgres 16.');
    await page.getByRole('button', { name: 'Replace content' }).click();
    await page.locator('#update-message', { hasText: 'Replaced.' }).waitFor(SHOWN);
    await expect.poll(() => content.textContent(), SHOWN).toBe('We keep the billing ledger in Postgres 16.');

    await page.getByLabel('Status', { exact: true }).selectOption('CANONICAL');
    await page.getByRole('button', { name: 'Set status' }).click();
    await page.locator('.badges-line .badge.status[data-value="CANONICAL"]').waitFor(SHOWN);

    await page.getByLabel('Other entry', { exact: true }).fill(runbook);
    await page.getByLabel('Edge type').selectOption('CAUSED_BY');
    await page.locator('#link-form button[type="submit"]').click();
    await page.locator('#connections li', { hasText: 'failover runbook' }).waitFor(SHOWN);
    await page.getByRole('button', { name: /^Unlink CAUSED_BY/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Unlink' }).click();
    await page.locator('#connections').waitFor({ state: 'detached', ...SHOWN });

    // A link made elsewhere reaches the open entry page through the live feed.
    await srv.gql(LINK, { input: { src: decision, dst: runbook, type: 'RELATES_TO' } }, ws);
    await page.locator('#connections li', { hasText: 'failover runbook' }).waitFor(SHOWN);

    // The graph around the entry.
    await page.goto(`${srv.origin}/#/graph?ids=${decision}&hops=1`);
    await expect
      .poll(
        () =>
          page.evaluate(() => (window as unknown as { __cy?: { nodes(): { length: number } } }).__cy?.nodes().length),
        SHOWN,
      )
      .toBe(2);

    // Recall, with the rewritten content.
    await page.goto(`${srv.origin}/#/recall?q=billing%20ledger%20Postgres`);
    await page.locator('#recall-hits li.hit', { hasText: 'Postgres 16' }).waitFor(SHOWN);

    // The feed: the link made elsewhere, then a forget made elsewhere, named by the entries' text.
    await page.getByRole('link', { name: 'Feed' }).click();
    const linked = feed.locator('li[data-type="LINKED"]', { hasText: 'RELATES_TO' });
    await linked.waitFor(SHOWN);
    await expect.poll(() => linked.textContent(), SHOWN).toContain('Postgres 16');
    await srv.gql(FORGET, { id: runbook }, ws);
    const forgotten = feed.locator('li[data-type="FORGOTTEN"]');
    await forgotten.waitFor(SHOWN);
    await expect.poll(() => forgotten.textContent(), SHOWN).toContain('failover runbook');

    // Back on the entry page: the edge to the forgotten entry is gone, though no event carried that page's data.
    await page.goto(`${srv.origin}/#/entry/${decision}`);
    await expect.poll(() => content.textContent(), SHOWN).toContain('Postgres 16');
    await page.locator('#connections').waitFor({ state: 'detached', ...SHOWN });

    // Stats and the brief, after the forget.
    await page.getByRole('link', { name: 'Stats' }).click();
    await expect.poll(() => page.locator('#stats-numbers').textContent(), SHOWN).toContain('30entries');

    expect(browser.errorsOf(page)).toEqual([]);
    expect(browser.warningsOf(page)).toEqual([]);
    await page.close();
  });
});
